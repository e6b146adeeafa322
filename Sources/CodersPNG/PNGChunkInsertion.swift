import Foundation

/// Ancillary chunks the encoder adds to the shim's output (iCCP, eXIf, iTXt), right after IHDR:
/// before IDAT, where iCCP and eXIf must be.
enum PNGChunkInsertion {
    struct Chunk {
        let type: String
        let payload: [UInt8]
    }

    /// Signature (8) plus IHDR (4 length + 4 type + 13 data + 4 CRC): PNGWriter.c writes these first.
    static let afterIHDR = 33

    /// `png` with `chunks` framed (length, type, payload, CRC) after IHDR; nil when it is too short
    /// or a chunk too long for PNG.
    static func inserting(_ chunks: [Chunk], in png: Data) -> Data? {
        guard !chunks.isEmpty else { return png }
        guard png.count > afterIHDR else { return nil }
        var framed: [UInt8] = []
        for chunk in chunks {
            guard chunk.payload.count <= 0x7FFF_FFFF else { return nil }
            let type = chunk.type.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            PNGChunk.append(type: type, payload: chunk.payload, to: &framed)
        }
        var out = Data(capacity: png.count + framed.count)
        out.append(png.prefix(afterIHDR))
        out.append(contentsOf: framed)
        out.append(png.dropFirst(afterIHDR))
        return out
    }
}
