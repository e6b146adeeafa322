import CDeflate
import Foundation
import PipelineCore

/// A PNG's EXIF (`eXIf`) and XMP (`iTXt` keyworded `XML:com.adobe.xmp`), found by walking the
/// chunks in place, wherever they lie (writers put XMP before or after the image data). Chunks
/// with a bad CRC are skipped, as libpng drops damaged ancillary chunks.
struct PNGMetadataChunks {
    static let xmpKeyword = Array("XML:com.adobe.xmp".utf8)

    private(set) var exif: Range<Data.Index>?
    private(set) var xmpChunk: Range<Data.Index>?

    init(_ data: Data) {
        guard data.count >= PNGHeader.minimumByteCount, data.starts(with: PNGHeader.signature) else { return }
        var offset = data.startIndex + 8
        while data.endIndex - offset >= 12 {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = data[offset + 4..<offset + 8]
            guard length <= data.endIndex - offset - 12 else { return }
            let payload = offset + 8..<offset + 8 + length
            if type.elementsEqual("IEND".utf8) { return }
            let isExif = exif == nil && type.elementsEqual("eXIf".utf8)
            let isXMP = xmpChunk == nil && type.elementsEqual("iTXt".utf8) && data[payload].starts(with: Self.xmpKeyword + [0])
            if (isExif || isXMP) && Self.crcMatches(data, chunkAt: offset, length: length) {
                if isExif { exif = payload } else { xmpChunk = payload }
            }
            offset = payload.upperBound + 4
        }
    }

    private static func crcMatches(_ data: Data, chunkAt offset: Data.Index, length: Int) -> Bool {
        let stored = data[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = data[offset + 4..<offset + 8 + length].withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        return stored == computed
    }

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

    /// The EXIF and XMP `options` keep, with warnings for what is over `maxMetadataBytes`, and the
    /// orientation the EXIF records (read whatever its size).
    func metadata(in data: Data, options: ImageDecodeOptions) -> (exif: Data?, xmp: Data?, orientation: ImageOrientation?, warnings: [ImageDecodeWarning]) {
        let orientation = exif.flatMap { ExifEditor.orientation(in: data[$0]) }
        let (keptExif, exifWarning) = options.acceptingMetadata(exif.map { Data(data[$0]) }, kind: "EXIF", format: "PNG")
        let (keptXMP, xmpWarning) = options.acceptingMetadata(xmp(in: data, limit: options.maxMetadataBytes), kind: "XMP", format: "PNG")
        return (keptExif, keptXMP, orientation, [exifWarning, xmpWarning].compactMap { $0 })
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
