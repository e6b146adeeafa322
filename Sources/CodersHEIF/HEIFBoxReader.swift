/// ISO base media file format boxes, read from a byte array without trusting any size in them.
struct HEIFBox {
    let type: String
    let payload: Range<Int>

    /// The boxes in `range`, stopping at the first malformed one.
    static func children(of bytes: [UInt8], in range: Range<Int>) -> [HEIFBox] {
        var boxes: [HEIFBox] = []
        var reader = HEIFBytes(bytes, range)
        while boxes.count < 4096, let start = Optional(reader.position), let size32 = reader.u32(), let type = reader.fourCC() {
            var size = size32
            if size == 1 {
                guard let large = reader.uint(8) else { break }
                size = large
            } else if size == 0 {
                size = range.upperBound - start
            }
            let headerEnd = reader.position
            guard size >= headerEnd - start, size <= range.upperBound - start else { break }
            boxes.append(HEIFBox(type: type, payload: headerEnd..<start + size))
            reader = HEIFBytes(bytes, start + size..<range.upperBound)
        }
        return boxes
    }
}

/// Big-endian reads within a range, nil past its end.
struct HEIFBytes {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        position = min(max(range.lowerBound, 0), bytes.count)
        end = max(min(range.upperBound, bytes.count), position)
    }

    mutating func uint(_ count: Int) -> Int? {
        guard count >= 0, count <= 8, end - position >= count else { return nil }
        var value: UInt64 = 0
        for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    mutating func u8() -> Int? { uint(1) }
    mutating func u16() -> Int? { uint(2) }
    mutating func u32() -> Int? { uint(4) }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, end - position >= count else { return false }
        position += count
        return true
    }

    mutating func fourCC() -> String? {
        guard end - position >= 4 else { return nil }
        defer { position += 4 }
        return String(decoding: bytes[position..<position + 4], as: UTF8.self)
    }
}
