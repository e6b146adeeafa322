/// Big-endian reads of an ISO base media file's fields within a range of a byte array, nil past
/// the range's end (or the array's).
package struct ISOBMFFBytes: Sendable {
    package let bytes: [UInt8]
    package private(set) var position: Int
    package let end: Int

    package init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        position = min(max(range.lowerBound, 0), bytes.count)
        end = max(min(range.upperBound, bytes.count), position)
    }

    /// An unsigned big-endian integer of `count` bytes (0 to 8); nil past the end or above `Int.max`.
    package mutating func uint(_ count: Int) -> Int? {
        guard count >= 0, count <= 8, end - position >= count else { return nil }
        var value: UInt64 = 0
        for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    package mutating func u8() -> Int? { uint(1) }
    package mutating func u16() -> Int? { uint(2) }
    package mutating func u32() -> Int? { uint(4) }

    /// A 64-bit field whatever its value (`uint(8)` refuses values above `Int.max`).
    package mutating func u64() -> UInt64? {
        guard end - position >= 8 else { return nil }
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(bytes[position + index]) }
        position += 8
        return value
    }

    package mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, end - position >= count else { return false }
        position += count
        return true
    }

    package mutating func fourCC() -> String? {
        guard end - position >= 4 else { return nil }
        defer { position += 4 }
        return String(decoding: bytes[position..<position + 4], as: UTF8.self)
    }

    /// A full box's version and flags (one byte, then three).
    package mutating func versionAndFlags() -> (version: Int, flags: Int)? {
        guard let version = u8(), let flags = uint(3) else { return nil }
        return (version, flags)
    }
}
