import Foundation
import PipelineCore

/// The canvas of an image derived from others: a `grid` of tiles or an `iovl` overlay.
/// libheif 1.15 allocates that canvas from the size written in the item's own data, which it
/// checks against neither the image's `ispe` nor the request's limits, so a 600-byte file can make
/// it allocate gigabytes. This reads the size from the boxes (`pitm`, `iinf`, `iloc`, `idat` or the
/// file) before libheif decodes anything.
enum HEIFDerivedCanvas {
    enum Outcome: Equatable {
        /// The image is not derived (or the file has no readable `meta`).
        case notDerived
        case canvas(ImageSize)
        /// The image is a grid or overlay whose description cannot be read.
        case unreadable
    }

    /// For item `item`, or the primary image when nil.
    static func outcome(_ data: Data, item: Int? = nil) -> Outcome {
        let bytes = [UInt8](data)
        guard let meta = Box.children(of: bytes, in: 0..<bytes.count).first(where: { $0.type == "meta" }) else { return .notDerived }
        // meta is a full box: 4 bytes of version and flags before its children.
        guard meta.payload.count >= 4 else { return .notDerived }
        let children = Box.children(of: bytes, in: meta.payload.lowerBound + 4..<meta.payload.upperBound)
        guard let primary = item ?? children.first(where: { $0.type == "pitm" }).flatMap({ primaryID($0, bytes) }),
              let iinf = children.first(where: { $0.type == "iinf" }),
              let type = itemType(primary, iinf, bytes)
        else { return .notDerived }
        guard type == "grid" || type == "iovl" else { return .notDerived }
        guard let iloc = children.first(where: { $0.type == "iloc" }),
              let location = location(of: primary, iloc, bytes)
        else { return .unreadable }
        let base: Int
        switch location.method {
        case 0: base = 0
        case 1:
            guard let idat = children.first(where: { $0.type == "idat" }) else { return .unreadable }
            base = idat.payload.lowerBound
        default: return .unreadable
        }
        let (start, overflow) = base.addingReportingOverflow(location.offset)
        guard !overflow, start >= 0, start < bytes.count else { return .unreadable }
        var reader = Reader(bytes, start..<bytes.count)
        guard let version = reader.u8(), version == 0, let flags = reader.u8() else { return .unreadable }
        let wide = flags & 1 == 1
        if type == "grid" {
            guard reader.skip(2) else { return .unreadable }
        } else {
            // An overlay's four 16-bit fill values come before its size.
            guard reader.skip(8) else { return .unreadable }
        }
        guard let width = wide ? reader.u32() : reader.u16(), let height = wide ? reader.u32() : reader.u16() else { return .unreadable }
        return .canvas(ImageSize(width: width, height: height))
    }

    private static func primaryID(_ pitm: Box, _ bytes: [UInt8]) -> Int? {
        var reader = Reader(bytes, pitm.payload)
        guard let version = reader.u8(), reader.skip(3) else { return nil }
        return version == 0 ? reader.u16() : reader.u32()
    }

    /// The four-character type of item `id` in `iinf` (item info entries of version 2 or 3).
    private static func itemType(_ id: Int, _ iinf: Box, _ bytes: [UInt8]) -> String? {
        var reader = Reader(bytes, iinf.payload)
        guard let version = reader.u8(), reader.skip(3), let _ = version == 0 ? reader.u16() : reader.u32() else { return nil }
        for entry in Box.children(of: bytes, in: reader.position..<iinf.payload.upperBound) where entry.type == "infe" {
            var infe = Reader(bytes, entry.payload)
            guard let entryVersion = infe.u8(), entryVersion >= 2, infe.skip(3),
                  let itemID = entryVersion == 2 ? infe.u16() : infe.u32(), infe.skip(2),
                  let type = infe.fourCC()
            else { continue }
            if itemID == id { return type }
        }
        return nil
    }

    /// Where item `id`'s data starts: its construction method (0 file, 1 idat) and offset of its
    /// first extent.
    private static func location(of id: Int, _ iloc: Box, _ bytes: [UInt8]) -> (method: Int, offset: Int)? {
        var reader = Reader(bytes, iloc.payload)
        guard let version = reader.u8(), version <= 2, reader.skip(3), let sizes = reader.u8(), let sizes2 = reader.u8() else { return nil }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseOffsetSize = Int(sizes2 >> 4)
        let indexSize = version >= 1 ? Int(sizes2 & 15) : 0
        guard let count = version < 2 ? reader.u16() : reader.u32() else { return nil }
        for _ in 0..<min(count, 65_536) {
            guard let itemID = version < 2 ? reader.u16() : reader.u32() else { return nil }
            var method = 0
            if version >= 1 {
                guard let value = reader.u16() else { return nil }
                method = value & 15
            }
            guard reader.skip(2), let base = reader.uint(baseOffsetSize), let extents = reader.u16() else { return nil }
            var first: Int?
            for _ in 0..<extents {
                guard reader.skip(indexSize), let offset = reader.uint(offsetSize), reader.skip(lengthSize) else { return nil }
                if first == nil { first = offset }
            }
            if itemID == id {
                let (sum, overflow) = base.addingReportingOverflow(first ?? 0)
                return overflow ? nil : (method, sum)
            }
        }
        return nil
    }

    struct Box {
        let type: String
        let payload: Range<Int>

        /// The boxes in `range`, stopping at the first malformed one.
        static func children(of bytes: [UInt8], in range: Range<Int>) -> [Box] {
            var boxes: [Box] = []
            var reader = Reader(bytes, range)
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
                boxes.append(Box(type: type, payload: headerEnd..<start + size))
                reader = Reader(bytes, start + size..<range.upperBound)
            }
            return boxes
        }
    }

    /// Big-endian reads within a range, nil past its end.
    struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            position = max(range.lowerBound, 0)
            end = min(range.upperBound, bytes.count)
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
}
