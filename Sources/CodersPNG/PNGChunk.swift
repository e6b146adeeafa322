import CDeflate
import Foundation

/// One chunk of a PNG file, found in place: where its length field starts, its type and its
/// payload. Walking never reads past the data: a chunk whose declared length runs past the end is
/// reported as cut, not returned.
struct PNGChunk {
    /// Offset of the chunk's length field in the data.
    let start: Data.Index
    /// The four type bytes as one big-endian number (compare with `PNGChunk.type("IDAT")`).
    let type: UInt32
    let payload: Range<Data.Index>
    /// Offset just past the chunk's CRC.
    var end: Data.Index { payload.upperBound + 4 }

    static func type(_ name: StaticString) -> UInt32 {
        name.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    static let IHDR = type("IHDR"), IDAT = type("IDAT"), IEND = type("IEND"), PLTE = type("PLTE"), tRNS = type("tRNS")
    static let acTL = type("acTL"), fcTL = type("fcTL"), fdAT = type("fdAT")

    /// The chunks of `data` from `offset` (just past the signature by default), in order, until
    /// `body` returns false or the data ends. Returns true when the walk stopped at a chunk cut
    /// short by the end of the data.
    @discardableResult
    static func walk(_ data: Data, from offset: Data.Index? = nil, _ body: (PNGChunk) throws -> Bool) rethrows -> Bool {
        var offset = offset ?? data.startIndex + 8
        while offset < data.endIndex {
            guard data.endIndex - offset >= 12 else { return true }
            let length = Int(bigEndian32(data, at: offset))
            guard length <= 0x7FFF_FFFF, length <= data.endIndex - offset - 12 else { return true }
            let chunk = PNGChunk(start: offset, type: bigEndian32(data, at: offset + 4), payload: offset + 8..<offset + 8 + length)
            guard try body(chunk) else { return false }
            offset = chunk.end
        }
        return false
    }

    /// Whether the stored CRC matches the chunk's type and payload.
    func crcMatches(in data: Data) -> Bool {
        let stored = Self.bigEndian32(data, at: payload.upperBound)
        let computed = data[start + 4..<payload.upperBound].withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        return stored == computed
    }

    static func bigEndian32(_ data: Data, at offset: Data.Index) -> UInt32 {
        data[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Appends a chunk (length, type, payload, CRC) to `out`.
    static func append(type: UInt32, payload: some Collection<UInt8>, to out: inout [UInt8]) {
        append(type: type, pieces: CollectionOfOne(payload), to: &out)
    }

    /// Appends a chunk whose payload is `pieces` one after the other, copied once.
    static func append<Piece: Collection<UInt8>>(type: UInt32, pieces: some Collection<Piece>, to out: inout [UInt8]) {
        appendBigEndian(UInt32(pieces.reduce(0) { $0 + $1.count }), to: &out)
        let typeStart = out.count
        appendBigEndian(type, to: &out)
        for piece in pieces { out.append(contentsOf: piece) }
        let crc = out.withUnsafeBufferPointer { libdeflate_crc32(0, $0.baseAddress! + typeStart, $0.count - typeStart) }
        appendBigEndian(crc, to: &out)
    }

    static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
