import Foundation
import PipelineCore

/// What one Redis value holds: an image's encoded bytes, their format and the origin's validators,
/// behind a versioned header so a value that is not ours, or is damaged, reads as a miss.
///
/// Layout (integers big-endian): "IPRC", version (1 byte), format identifier length (1 byte) and
/// bytes, ETag length (2 bytes) and bytes, Last-Modified length (2 bytes) and bytes, payload length
/// (8 bytes), payload. Decoding checks every length against what is left.
public struct RedisCacheEntry: Sendable, Equatable {
    public var data: Data
    /// The identifier of the bytes' format (`ImageFormat.identifier`), e.g. "public.png".
    public var formatIdentifier: String
    public var etag: String?
    public var lastModified: String?

    public init(data: Data, formatIdentifier: String, etag: String? = nil, lastModified: String? = nil) {
        self.data = data
        self.formatIdentifier = formatIdentifier
        self.etag = etag
        self.lastModified = lastModified
    }

    static let magic: [UInt8] = Array("IPRC".utf8)
    static let version: UInt8 = 1

    /// The value to store; nil when a field is too long for its length prefix.
    func encoded() -> Data? {
        let format = Array(formatIdentifier.utf8)
        let etag = Array((etag ?? "").utf8)
        let lastModified = Array((lastModified ?? "").utf8)
        guard format.count <= UInt8.max, etag.count <= UInt16.max, lastModified.count <= UInt16.max else { return nil }
        var out = Data(capacity: 4 + 1 + 1 + format.count + 4 + etag.count + lastModified.count + 8 + data.count)
        out.append(contentsOf: Self.magic)
        out.append(Self.version)
        out.append(UInt8(format.count))
        out.append(contentsOf: format)
        for field in [etag, lastModified] {
            out.append(UInt8(field.count >> 8))
            out.append(UInt8(field.count & 0xFF))
            out.append(contentsOf: field)
        }
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(data.count) >> UInt64(shift))) }
        out.append(data)
        return out
    }

    /// The entry in `value`, or nil when the value is not a complete entry of this version.
    init?(decoding value: Data) {
        var reader = ByteReader(bytes: value)
        guard reader.take(4).map(Array.init) == Self.magic, reader.byte() == Self.version,
              let formatLength = reader.byte(), let format = reader.text(Int(formatLength)), !format.isEmpty,
              let etagLength = reader.uint16(), let etag = reader.text(Int(etagLength)),
              let modifiedLength = reader.uint16(), let lastModified = reader.text(Int(modifiedLength)),
              let payloadLength = reader.uint64(), payloadLength == UInt64(reader.remaining), payloadLength > 0,
              let payload = reader.take(Int(payloadLength))
        else { return nil }
        self.init(data: Data(payload), formatIdentifier: format, etag: etag.isEmpty ? nil : etag,
                  lastModified: lastModified.isEmpty ? nil : lastModified)
    }
}

/// Reads a value front to back; every read checks what is left.
private struct ByteReader {
    let bytes: Data
    var offset: Int

    init(bytes: Data) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - offset }

    mutating func take(_ count: Int) -> Data? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func uint16() -> UInt16? {
        guard let two = take(2) else { return nil }
        return two.reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint64() -> UInt64? {
        guard let eight = take(8) else { return nil }
        return eight.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func text(_ count: Int) -> String? {
        take(count).flatMap { String(validating: Array($0), as: UTF8.self) }
    }
}
