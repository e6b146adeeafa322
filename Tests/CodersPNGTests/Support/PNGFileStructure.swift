import CZlib
import Foundation

/// A written PNG taken apart without libpng: chunks with their CRCs recomputed by zlib, the IDAT
/// stream inflated by zlib, and each row's filter byte. A second opinion on what our writer
/// produced, since our decoder is libpng too.
struct PNGFileStructure {
    struct Chunk {
        let type: String
        let payload: [UInt8]
        let storedCRC: UInt32
        let computedCRC: UInt32
    }

    let hasSignature: Bool
    let chunks: [Chunk]
    /// Bytes after the last whole chunk (a well-formed file has none).
    let trailingBytes: Int

    init(_ data: Data) {
        let bytes = [UInt8](data)
        hasSignature = bytes.count >= 8 && bytes.prefix(8).elementsEqual(PNGTestImages.signature)
        var chunks: [Chunk] = []
        var offset = 8
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        while offset + 12 <= bytes.count {
            let length = Int(u32(offset))
            guard offset + 12 + length <= bytes.count else { break }
            let typed = Array(bytes[offset + 4..<offset + 8 + length])
            let computed = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            chunks.append(
                Chunk(
                    type: String(decoding: typed.prefix(4), as: UTF8.self), payload: Array(typed.dropFirst(4)),
                    storedCRC: u32(offset + 8 + length), computedCRC: computed))
            offset += 12 + length
        }
        self.chunks = chunks
        trailingBytes = bytes.count - offset
    }

    /// IHDR's fields: width, height, bit depth, colour type, compression, filter, interlace.
    var header: (width: Int, height: Int, fields: [UInt8])? {
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.payload.count == 13 else { return nil }
        let p = ihdr.payload
        let width = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
        let height = Int(p[4]) << 24 | Int(p[5]) << 16 | Int(p[6]) << 8 | Int(p[7])
        return (width, height, Array(p[8...]))
    }

    /// The filter byte of each row, from the IDAT stream inflated by zlib; nil when it does not
    /// inflate to exactly `height` rows of `rowBytes`.
    func rowFilters(rowBytes: Int, height: Int) -> [UInt8]? {
        let compressed = chunks.filter { $0.type == "IDAT" }.flatMap(\.payload)
        var raw = [UInt8](repeating: 0, count: height * (rowBytes + 1))
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { uncompress(out.baseAddress, &rawLength, $0.baseAddress, uLong($0.count)) }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else { return nil }
        return (0..<height).map { raw[$0 * (rowBytes + 1)] }
    }
}
