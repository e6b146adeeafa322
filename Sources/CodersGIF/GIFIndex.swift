import CGIF
import Foundation
import PipelineCore

/// The first of two passes over a GIF: walks the records (descriptors, extensions, skipped LZW
/// sub-blocks) and keeps where every image block starts and how it is to be drawn, without
/// decoding a pixel. Frames are decoded later, one block at a time, from the stored offsets.
/// With `firstFrameOnly` the walk stops after the first image block: a still output needs nothing
/// after it, and a long animation's later blocks are never read, not even skipped over.
struct GIFIndex: Sendable {
    let screen: ImageSize
    /// Bytes of the header, logical screen descriptor and global colour table: every block decode
    /// replays them before jumping to its descriptor.
    let headerLength: Int
    let blocks: [GIFBlock]
    let frames: [GIFFrameSpan]
    /// NETSCAPE2.0 (or ANIMEXTS1.0) loop count; absent → 1, SDWebImage's GIF default (play once).
    let loopCount: Int
    /// For each block, the nearest block at or before it that can be drawn on a cleared canvas
    /// with the same result as after replaying everything before it.
    let keyBlocks: [Int]
    let hasTransparency: Bool
    /// The block the file ends inside, if it does: drawn as far as its data goes.
    let truncatedBlock: Int?
    /// A `.truncated` warning when the file ends inside a record (a file that merely lacks the
    /// trailer byte, as many in the wild do, gets none), and a profile or XMP over its limit.
    let warnings: [ImageDecodeWarning]
    /// The ICC profile and XMP packet of the file's application extensions, if any.
    let colorProfile: ImageColorProfile?
    let xmp: Data?
    /// The file holds metadata not in `colorProfile` or `xmp`: a comment, an application
    /// extension other than the loop count and the first profile and XMP, or XMP left out for its
    /// size; or, when the walk stopped at the first frame, anything but the trailer follows it.
    let hasUnreadMetadata: Bool

    init(_ data: Data, options: ImageDecodeOptions) throws {
        let file = try GIFFile(GIFByteReader(data))
        let handle = file.handle
        screen = ImageSize(width: Int(handle.pointee.SWidth), height: Int(handle.pointee.SHeight))
        guard !screen.isEmpty else { throw ImagePipeError.badImageData(reason: "GIF logical screen is \(screen)") }
        try options.checkPixelLimit(screen)
        headerLength = file.reader.position

        var blocks: [GIFBlock] = []
        var loop: Int?
        var pending: (disposal: Int, transparent: Int?, delay: Int)?
        var truncatedBlock: Int?
        var foundUnreadMetadata = false
        var warnings: [ImageDecodeWarning] = []
        var metadata = GIFMetadataReader(options: options)
        // A file that ends inside a record after at least one image keeps what was read, with a
        // warning, as browsers and libvips show a cut-off GIF; with no image yet it is refused.
        let reader = file.reader
        func endsEarly(_ what: String) -> Bool {
            guard reader.position >= data.count, !blocks.isEmpty else { return false }
            warnings.append(ImageDecodeWarning(.truncated, message: "GIF: file is truncated \(what)"))
            return true
        }
        scan: while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(handle, &type) == GIF_OK else {
                // Many GIFs in the wild end without the trailer byte; what was read stands.
                if !blocks.isEmpty, file.reader.position >= data.count { break scan }
                throw file.lastError
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                // Checked before DGifGetImageDesc grows giflib's per-image array.
                try options.checkFrameLimit(blocks.count + 1)
                let offset = file.reader.position - 1
                if let end = Self.skipEmptyBlock(data, at: offset) {
                    blocks.append(
                        GIFBlock(
                            descriptorOffset: offset, left: 0, top: 0, width: 0, height: 0,
                            disposal: pending?.disposal ?? 0, transparentIndex: nil, delay: pending?.delay))
                    pending = nil
                    file.reader.skip(to: end)
                    if end >= data.count || options.firstFrameOnly { break scan }
                    continue scan
                }
                guard DGifGetImageDesc(handle) == GIF_OK else {
                    if endsEarly("after image \(blocks.count)") { break scan }
                    throw file.lastError
                }
                let image = handle.pointee.Image
                var block = GIFBlock(
                    descriptorOffset: offset, left: Int(image.Left), top: Int(image.Top),
                    width: Int(image.Width), height: Int(image.Height),
                    disposal: 0, transparentIndex: nil, delay: nil)
                if let pending {
                    block.disposal = pending.disposal
                    block.transparentIndex = pending.transparent
                    block.delay = pending.delay
                }
                pending = nil
                if !block.isEmpty { try options.checkPixelLimit(ImageSize(width: block.width, height: block.height)) }
                do {
                    try Self.skipCode(data, reader: file.reader)
                } catch {
                    guard file.reader.position >= data.count else { throw error }
                    blocks.append(block)
                    truncatedBlock = blocks.count - 1
                    _ = endsEarly("inside image \(blocks.count); its missing rows are not drawn")
                    break scan
                }
                blocks.append(block)
                if options.firstFrameOnly { break scan }
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var bytes: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(handle, &code, &bytes) == GIF_OK else {
                    if endsEarly("after image \(blocks.count)") { break scan }
                    throw file.lastError
                }
                var isLoopExtension = false, isMetadata = false
                if let bytes, code == GRAPHICS_EXT_FUNC_CODE, bytes[0] >= 4 {
                    let packed = Int(bytes[1])
                    pending = (
                        disposal: (packed >> 2) & 7,
                        transparent: packed & 1 != 0 ? Int(bytes[4]) : nil,
                        delay: Int(bytes[2]) | Int(bytes[3]) << 8
                    )
                } else if let bytes, code == APPLICATION_EXT_FUNC_CODE, bytes[0] == 11 {
                    let name = String(decoding: UnsafeBufferPointer(start: bytes + 1, count: 11), as: UTF8.self)
                    isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
                    isMetadata = metadata.begin(application: UnsafeBufferPointer(start: bytes + 1, count: 11))
                }
                if (code == COMMENT_EXT_FUNC_CODE && bytes != nil) || (code == APPLICATION_EXT_FUNC_CODE && !isLoopExtension && !isMetadata) {
                    foundUnreadMetadata = true
                }
                defer { if isMetadata { metadata.end() } }
                // No first sub-block (an empty comment, `21 FE 00`): giflib has already read the
                // terminator, and asking for the next sub-block would eat the following record.
                while bytes != nil {
                    var next: UnsafeMutablePointer<GifByteType>?
                    guard DGifGetExtensionNext(handle, &next) == GIF_OK else {
                        if endsEarly("after image \(blocks.count)") { break scan }
                        throw file.lastError
                    }
                    guard let next else { break }
                    if isMetadata { metadata.add(subBlock: next) }
                    // The first loop count stands, as giflib's readers, browsers and ImageIO take it.
                    if isLoopExtension, loop == nil, next[0] >= 3, next[1] & 7 == 1 {
                        loop = Int(next[2]) | Int(next[3]) << 8
                    }
                }
            case TERMINATE_RECORD_TYPE:
                // Bytes after the trailer (an appended file, a payload) are metadata not read.
                if file.reader.position < data.count { foundUnreadMetadata = true }
                break scan
            default:
                throw ImagePipeError.badImageData(reason: "GIF has an unknown record")
            }
        }
        // A file with a screen but no image is no picture (giflib: "no image descriptor"; Pillow
        // and ImageIO refuse it too), though the pygif suite shows the empty screen.
        guard !blocks.isEmpty else { throw ImagePipeError.badImageData(reason: "GIF has no image") }
        self.blocks = blocks
        self.truncatedBlock = truncatedBlock
        self.warnings = warnings + metadata.warnings
        self.colorProfile = metadata.colorProfile
        self.xmp = metadata.xmp
        let stoppedEarly = options.firstFrameOnly && truncatedBlock == nil && !Self.endsAfterTrailer(data, at: file.reader.position)
        self.hasUnreadMetadata = foundUnreadMetadata || metadata.leftOutMetadata || stoppedEarly
        self.loopCount = loop ?? 1
        self.frames = Self.spans(blocks)
        try options.checkFrameLimit(frames.count)
        self.keyBlocks = Self.keyBlocks(blocks, screen: screen)
        self.hasTransparency = blocks.contains { $0.transparentIndex != nil || $0.disposal == 2 } || !blocks[0].covers(screen)
    }

    /// Nothing but the trailer byte, or nothing at all, follows `offset`.
    private static func endsAfterTrailer(_ data: Data, at offset: Int) -> Bool {
        let rest = data.count - offset
        return rest <= 0 || (rest == 1 && data[data.startIndex + offset] == 0x3B)
    }

    /// A block of zero width or height draws nothing, and encoders often write no pixel data for
    /// it at all, which giflib then fails to read. Such a block is skipped here by hand (descriptor,
    /// local colour table, code size, sub-blocks; a file ending inside it simply ends) and the
    /// offset after it returned; nil for any other block.
    private static func skipEmptyBlock(_ data: Data, at offset: Int) -> Int? {
        let count = data.count
        guard offset >= 0, offset + 10 <= count else { return nil }
        let base = data.startIndex + offset
        let width = Int(data[base + 5]) | Int(data[base + 6]) << 8
        let height = Int(data[base + 7]) | Int(data[base + 8]) << 8
        guard width == 0 || height == 0 else { return nil }
        let flags = data[base + 9]
        var position = offset + 10
        if flags & 0x80 != 0 { position += 3 << (Int(flags & 7) + 1) }
        guard position < count else { return count }
        position += 1
        while position < count {
            let length = Int(data[data.startIndex + position])
            position += 1
            if length == 0 { break }
            position += length
        }
        return min(position, count)
    }

    /// Skips a block's LZW data sub-block by sub-block, without decompressing it: by hand over the
    /// bytes, as `skipEmptyBlock` does, since giflib would copy every sub-block out through the
    /// reader. Call after `DGifGetImageDesc`, which has read the LZW code size. A file ending
    /// inside the data leaves the reader at its end and throws.
    private static func skipCode(_ data: Data, reader: GIFByteReader) throws {
        let count = data.count
        let end: Int? = data.withUnsafeBytes { bytes in
            var position = reader.position
            while position < count {
                let length = Int(bytes[position])
                position += 1 + length
                if length == 0 { return position }
            }
            return nil
        }
        guard let end, end <= count else {
            reader.skip(to: count)
            throw ImagePipeError.badImageData(reason: "GIF image data is truncated")
        }
        reader.skip(to: end)
    }

    /// Every image block is a displayed frame, as giflib counts them and browsers, ImageIO and
    /// Pillow play them: a block without a delay, or with a zero one, is still its own frame (shown
    /// for 100 ms under SDWebImage's rule), never merged into the next.
    static func spans(_ blocks: [GIFBlock]) -> [GIFFrameSpan] {
        blocks.indices.map { index in
            let milliseconds = (blocks[index].delay ?? 0) * 10
            return GIFFrameSpan(firstBlock: index, lastBlock: index, duration: AnimationFrameDuration.clamped(Double(milliseconds) / 1000))
        }
    }

    /// Block j starts from a clear canvas when it is the first, when the block before it left a
    /// clear canvas (disposed to background over all it drew, or restored a clear canvas), or when
    /// it covers the screen with no transparency (and does not restore what was under it).
    static func keyBlocks(_ blocks: [GIFBlock], screen: ImageSize) -> [Int] {
        var startsClear: [Bool] = []
        var keys: [Int] = []
        for (index, block) in blocks.enumerated() {
            var clear = index == 0
            if !clear, block.covers(screen), block.transparentIndex == nil, block.disposal != 3 { clear = true }
            if !clear {
                let previous = blocks[index - 1]
                if previous.disposal == 2 && (previous.covers(screen) || startsClear[index - 1]) { clear = true }
                if previous.disposal == 3 && startsClear[index - 1] { clear = true }
            }
            startsClear.append(clear)
            keys.append(clear ? index : keys[index - 1])
        }
        return keys
    }
}
