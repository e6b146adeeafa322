import Foundation
import PipelineCore

/// What one Redis value holds: an image's encoded bytes, their format and the origin's validators,
/// behind a versioned header so a value that is not ours, or is damaged, reads as a miss.
///
/// Layout (integers big-endian): "IPRC", version (1 byte), format identifier length (1 byte) and
/// bytes, ETag length (2 bytes) and bytes, Last-Modified length (2 bytes) and bytes, then in
/// version 2 the freshness lifetime (1 byte, 1 when present, and the Double's 8 bytes), payload
/// length (8 bytes), payload. Decoding checks every length against what is left. Version 1 values
/// (no freshness) are still read, so servers of both versions can share one Redis during a rollout;
/// a version 1 server reads a version 2 value as a miss.
public struct RedisCacheEntry: Sendable, Equatable {
    public var data: Data
    /// The identifier of the bytes' format (`ImageFormat.identifier`), e.g. "public.png".
    public var formatIdentifier: String
    /// The origin's validators; nil when it sent none.
    public var validators: CacheValidators?

    public init(data: Data, formatIdentifier: String, validators: CacheValidators? = nil) {
        self.data = data
        self.formatIdentifier = formatIdentifier
        self.validators = validators
    }

    static let magic: [UInt8] = Array("IPRC".utf8)
    static let version: UInt8 = 2

    /// The value to store; nil when a field is too long for its length prefix.
    func encoded() -> Data? {
        let format = Array(formatIdentifier.utf8)
        let etag = Array((validators?.etag ?? "").utf8)
        let lastModified = Array((validators?.lastModified ?? "").utf8)
        guard format.count <= UInt8.max, etag.count <= UInt16.max, lastModified.count <= UInt16.max else { return nil }
        var out = Data(capacity: 4 + 1 + 1 + format.count + 4 + etag.count + lastModified.count + 9 + 8 + data.count)
        out.append(contentsOf: Self.magic)
        out.append(Self.version)
        out.append(UInt8(format.count))
        out.append(contentsOf: format)
        for field in [etag, lastModified] {
            out.append(UInt8(field.count >> 8))
            out.append(UInt8(field.count & 0xFF))
            out.append(contentsOf: field)
        }
        if let lifetime = validators?.freshnessLifetime {
            out.append(1)
            Self.appendBigEndian(lifetime.bitPattern, to: &out)
        } else {
            out.append(0)
        }
        Self.appendBigEndian(UInt64(data.count), to: &out)
        out.append(data)
        return out
    }

    private static func appendBigEndian(_ value: UInt64, to out: inout Data) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// The entry in `value`, or nil when the value is not a complete entry of a version this
    /// code reads. Validators are sanitized as a disk entry's are: the value is shared, and they
    /// are sent back as headers.
    init?(decoding value: Data) {
        var reader = ByteReader(bytes: value)
        guard reader.take(4).map(Array.init) == Self.magic, let version = reader.byte(), version == 1 || version == 2,
            let formatLength = reader.byte(), let format = reader.text(Int(formatLength)), !format.isEmpty,
            let etagLength = reader.uint16(), let etag = reader.text(Int(etagLength)),
            let modifiedLength = reader.uint16(), let lastModified = reader.text(Int(modifiedLength))
        else { return nil }
        var lifetime: TimeInterval?
        if version >= 2 {
            guard let present = reader.byte(), present <= 1 else { return nil }
            if present == 1 {
                guard let bits = reader.uint64() else { return nil }
                lifetime = TimeInterval(bitPattern: bits)
            }
        }
        guard let payloadLength = reader.uint64(), payloadLength == UInt64(reader.remaining), payloadLength > 0,
            let payload = reader.take(Int(payloadLength))
        else { return nil }
        let validators = CacheValidators(etag: etag, lastModified: lastModified, freshnessLifetime: lifetime).sanitized
        let hasAny = validators.canRevalidate || validators.freshnessLifetime != nil
        self.init(data: Self.sharing(payload, of: value), formatIdentifier: format, validators: hasAny ? validators : nil)
    }

    /// `slice` of `value` as a `Data` of its own (indices from 0) without copying the bytes: it
    /// keeps `value`, whose heap storage never moves or changes while shared. Short slices, which
    /// `Data` may keep inline, are copied.
    private static func sharing(_ slice: Data, of value: Data) -> Data {
        guard slice.count > 64 else { return Data(slice) }
        return slice.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return Data() }
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count,
                deallocator: .custom { _, _ in
                    withExtendedLifetime(value) {}
                })
        }
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
