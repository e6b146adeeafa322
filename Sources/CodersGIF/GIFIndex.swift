import CGIF
import Foundation
import PipelineCore

/// The first of two passes over a GIF: walks the records (descriptors, extensions, skipped LZW
/// sub-blocks) and keeps where every image block starts and how it is to be drawn, without
/// decoding a pixel. Frames are decoded later, one block at a time, from the stored offsets.
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
    /// trailer byte, as many in the wild do, gets none).
    let warnings: [ImageDecodeWarning]

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
        var warnings: [ImageDecodeWarning] = []
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
                    blocks.append(GIFBlock(descriptorOffset: offset, left: 0, top: 0, width: 0, height: 0,
                                           disposal: pending?.disposal ?? 0, transparentIndex: nil, delay: pending?.delay))
                    pending = nil
                    file.reader.skip(to: end)
                    if end >= data.count { break scan }
                    continue scan
                }
                guard DGifGetImageDesc(handle) == GIF_OK else {
                    if endsEarly("after image \(blocks.count)") { break scan }
                    throw file.lastError
                }
                let image = handle.pointee.Image
                var block = GIFBlock(descriptorOffset: offset, left: Int(image.Left), top: Int(image.Top),
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
                    try Self.skipCode(handle, file: file)
                } catch {
                    guard file.reader.position >= data.count else { throw error }
                    blocks.append(block)
                    truncatedBlock = blocks.count - 1
                    _ = endsEarly("inside image \(blocks.count); its missing rows are not drawn")
                    break scan
                }
                blocks.append(block)
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var bytes: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(handle, &code, &bytes) == GIF_OK else {
                    if endsEarly("after image \(blocks.count)") { break scan }
                    throw file.lastError
                }
                var isLoopExtension = false
                if let bytes, code == GRAPHICS_EXT_FUNC_CODE, bytes[0] >= 4 {
                    let packed = Int(bytes[1])
                    pending = (disposal: (packed >> 2) & 7,
                               transparent: packed & 1 != 0 ? Int(bytes[4]) : nil,
                               delay: Int(bytes[2]) | Int(bytes[3]) << 8)
                } else if let bytes, code == APPLICATION_EXT_FUNC_CODE, bytes[0] == 11 {
                    let name = String(decoding: UnsafeBufferPointer(start: bytes + 1, count: 11), as: UTF8.self)
                    isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
                }
                while true {
                    var next: UnsafeMutablePointer<GifByteType>?
                    guard DGifGetExtensionNext(handle, &next) == GIF_OK else {
                        if endsEarly("after image \(blocks.count)") { break scan }
                        throw file.lastError
                    }
                    guard let next else { break }
                    if isLoopExtension, next[0] >= 3, next[1] & 7 == 1 {
                        loop = Int(next[2]) | Int(next[3]) << 8
                    }
                }
            case TERMINATE_RECORD_TYPE:
                break scan
            default:
                throw ImagePipeError.badImageData(reason: "GIF has an unknown record")
            }
        }
        if blocks.isEmpty {
            // A well-formed file with no image (pygif's no-data): the suite, like browsers, shows
            // the empty screen, transparent. Header-only truncations fail earlier, at EOF.
            blocks.append(GIFBlock(descriptorOffset: 0, left: 0, top: 0, width: 0, height: 0,
                                   disposal: 0, transparentIndex: nil, delay: nil))
        }
        let isGIF87a = data.count >= 6 && data[data.startIndex + 3..<data.startIndex + 6].elementsEqual("87a".utf8)
        self.blocks = blocks
        self.truncatedBlock = truncatedBlock
        self.warnings = warnings
        self.loopCount = loop ?? 1
        // Without delays, a run of three or more full-screen pictures is an animation written
        // without graphic control extensions (pygif's "force-animation" case); two overlapping
        // blocks are one picture drawn in two steps (pygif's images-overlap).
        let logicalScreen = screen
        let fullScreenRun = blocks.count >= 3 && blocks.allSatisfy { $0.covers(logicalScreen) }
        self.frames = Self.spans(blocks, looksAnimated: loop != nil || isGIF87a || fullScreenRun)
        try options.checkFrameLimit(frames.count)
        self.keyBlocks = Self.keyBlocks(blocks, screen: screen)
        self.hasTransparency = blocks.contains { $0.transparentIndex != nil || $0.disposal == 2 } || !blocks[0].covers(screen)
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

    /// Skips a block's LZW data sub-block by sub-block, without decompressing it.
    private static func skipCode(_ handle: UnsafeMutablePointer<GifFileType>, file: borrowing GIFFile) throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(handle, &codeSize, &block) == GIF_OK else { throw file.lastError }
        while block != nil {
            guard DGifGetCodeNext(handle, &block) == GIF_OK else { throw file.lastError }
        }
    }

    /// Groups blocks into displayed frames the way the pygif suite (and browsers) count them: a
    /// block without a positive delay is drawn together with the blocks after it, up to one that
    /// has a delay. When no block has a delay, a file that looks animated (a loop extension,
    /// GIF87a, which cannot carry delays, or a run of full-screen pictures) shows every block as a
    /// frame; any other file is one picture built from all its blocks.
    static func spans(_ blocks: [GIFBlock], looksAnimated: Bool) -> [GIFFrameSpan] {
        func duration(_ block: GIFBlock) -> Double {
            let milliseconds = (block.delay ?? 0) * 10
            return milliseconds < 11 ? 0.1 : Double(milliseconds) / 1000
        }
        guard blocks.contains(where: { ($0.delay ?? 0) > 0 }) else {
            if looksAnimated {
                return blocks.indices.map { GIFFrameSpan(firstBlock: $0, lastBlock: $0, duration: duration(blocks[$0])) }
            }
            return [GIFFrameSpan(firstBlock: 0, lastBlock: blocks.count - 1, duration: 0.1)]
        }
        var spans: [GIFFrameSpan] = []
        var first = 0
        for (index, block) in blocks.enumerated() where (block.delay ?? 0) > 0 || index == blocks.count - 1 {
            spans.append(GIFFrameSpan(firstBlock: first, lastBlock: index, duration: duration(block)))
            first = index + 1
        }
        return spans
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
