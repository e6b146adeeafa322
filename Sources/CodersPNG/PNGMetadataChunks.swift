import CDeflate
import Foundation
import PipelineCore

/// A PNG's EXIF (`eXIf`) and XMP (`iTXt` keyworded `XML:com.adobe.xmp`), found by walking the
/// chunks in place, wherever they lie (writers put XMP before or after the image data). Chunks
/// with a bad CRC are skipped, as libpng drops damaged ancillary chunks.
struct PNGMetadataChunks {
    static let xmpKeyword = Array("XML:com.adobe.xmp".utf8)

    /// Chunks that describe the pixels, not their author or origin: the critical ones, colour,
    /// transparency, physical size and APNG's frames. Any other chunk (tEXt, zTXt, iTXt, tIME, a
    /// private chunk) is metadata this coder does not read.
    static let pixelChunks: Set<UInt32> = Set(
        [
            "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "mDCv", "cLLi",
            "sBIT", "bKGD", "hIST", "pHYs", "sPLT", "oFFs", "pCAL", "sCAL", "acTL", "fcTL", "fdAT",
        ].map { (name: String) in name.utf8.reduce(0) { $0 << 8 | UInt32($1) } })

    private(set) var exif: Range<Data.Index>?
    private(set) var xmpChunk: Range<Data.Index>?
    /// True when the file holds a chunk of metadata not read into `exif` or `xmpChunk` (a text
    /// chunk, a second or damaged eXIf…) or bytes after IEND, or the walk stopped before IEND and
    /// cannot tell.
    private(set) var hasUnreadMetadata = true

    /// `releasingPages`, when given, is called every 256 chunks (a file mapping's pages, which the
    /// walk would otherwise leave resident).
    init(_ data: Data, releasingPages: (() -> Void)? = nil) {
        guard data.count >= PNGHeader.minimumByteCount, data.starts(with: PNGHeader.signature) else { return }
        var foundUnread = false
        var visited = 0
        PNGChunk.walk(data) { chunk in
            visited += 1
            if visited % 256 == 0 { releasingPages?() }
            if chunk.type == PNGChunk.IEND {
                // Bytes after IEND (an appended file, a trailer) would be copied through too.
                hasUnreadMetadata = foundUnread || chunk.end < data.endIndex
                return false
            }
            let isExif = exif == nil && chunk.type == Self.eXIf
            let isXMP = xmpChunk == nil && chunk.type == Self.iTXt && data[chunk.payload].starts(with: Self.xmpKeyword + [0])
            if (isExif || isXMP) && chunk.crcMatches(in: data) {
                if isExif { exif = chunk.payload } else { xmpChunk = chunk.payload }
            } else if !Self.pixelChunks.contains(chunk.type) {
                foundUnread = true
            }
            return true
        }
    }

    private static let eXIf = PNGChunk.type("eXIf"), iTXt = PNGChunk.type("iTXt")

    /// The XMP packet: the iTXt text after the keyword, flags, language and translated keyword,
    /// inflated when compressed. Nil when malformed; inflating stops one byte past `limit`, so
    /// a packet over it still comes back over it (and is then refused).
    func xmp(in data: Data, limit: Int) -> Data? {
        guard let chunk = xmpChunk else { return nil }
        var rest = data[chunk].dropFirst(Self.xmpKeyword.count + 1)
        guard rest.count >= 2 else { return nil }
        let compressed = rest[rest.startIndex] == 1
        rest = rest.dropFirst(2)
        for _ in 0..<2 {  // language tag, translated keyword
            guard let end = rest.firstIndex(of: 0) else { return nil }
            rest = rest[(end + 1)...]
        }
        guard compressed else { return Data(rest) }
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var output = [UInt8](repeating: 0, count: max(limit, 0) + 1)
        var written = 0
        let result = rest.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, $0.baseAddress, $0.count, &written) }
        }
        if result == LIBDEFLATE_INSUFFICIENT_SPACE { return Data(output) }
        return result == LIBDEFLATE_SUCCESS ? Data(output.prefix(written)) : nil
    }

    /// The EXIF and XMP `options` keep, with warnings for what is over `maxMetadataBytes`, the
    /// orientation the EXIF records (read whatever its size), and whether the file holds metadata
    /// left unread or left out for its size.
    func metadata(in data: Data, options: ImageDecodeOptions)
        -> (exif: Data?, xmp: Data?, orientation: ImageOrientation?, warnings: [ImageDecodeWarning], hasUnread: Bool)
    {
        let orientation = exif.flatMap { ExifEditor.orientation(in: data[$0]) }
        let (keptExif, exifWarning) = options.acceptingMetadata(exif.map { Data(data[$0]) }, kind: "EXIF", format: "PNG")
        let packet = xmp(in: data, limit: options.maxMetadataBytes)
        let (keptXMP, xmpWarning) = options.acceptingMetadata(packet, kind: "XMP", format: "PNG")
        // An XMP chunk too malformed to read is still in the file.
        let hasUnread = hasUnreadMetadata || exifWarning != nil || xmpWarning != nil || (xmpChunk != nil && packet == nil)
        return (keptExif, keptXMP, orientation, [exifWarning, xmpWarning].compactMap { $0 }, hasUnread)
    }
}

extension PNGMetadataChunks {
    /// The chunks that carry `image`'s EXIF and XMP (uncompressed iTXt, as XMP writers do).
    static func chunks(for image: Image) -> [PNGChunkInsertion.Chunk] {
        var chunks: [PNGChunkInsertion.Chunk] = []
        if let exif = image.metadata.exif { chunks.append(.init(type: "eXIf", payload: [UInt8](exif))) }
        // Keyword, NUL, compression flag and method 0, empty language tag and translated keyword.
        if let xmp = image.metadata.xmp { chunks.append(.init(type: "iTXt", payload: xmpKeyword + [0, 0, 0, 0, 0] + [UInt8](xmp))) }
        return chunks
    }
}
