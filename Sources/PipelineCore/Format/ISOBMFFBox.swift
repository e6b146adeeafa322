/// A box of an ISO base media file (HEIF, HEIC, AVIF), read from a byte array without trusting any
/// size in it. For the coders of those formats, which read structure their C libraries do not
/// expose; not part of the public API.
package struct ISOBMFFBox: Sendable {
    package let type: String
    /// The box's contents after its header, within the array it was read from.
    package let payload: Range<Int>

    /// The boxes in `range`, in order, stopping at the first malformed one and after 4096.
    package static func children(of bytes: [UInt8], in range: Range<Int>) -> [ISOBMFFBox] {
        var boxes: [ISOBMFFBox] = []
        var start = range.lowerBound
        let end = min(range.upperBound, bytes.count)
        while boxes.count < 4096, let header = Header(bytes, at: start, end: end) {
            boxes.append(ISOBMFFBox(type: header.type, payload: start + header.length..<start + header.size))
            start += header.size
        }
        return boxes
    }

    /// The first child of type `type` in `range`.
    package static func child(_ type: String, of bytes: [UInt8], in range: Range<Int>) -> ISOBMFFBox? {
        children(of: bytes, in: range).first { $0.type == type }
    }

    /// A box header: its type, its own length (8, or 16 with a 64-bit size) and the box's whole
    /// size, which a size field of 0 makes "to `end`".
    package struct Header: Sendable {
        package let type: String
        package let length: Int
        package let size: Int

        /// The header of a box starting at `start` in `bytes`, if the box ends at or before `end`.
        /// `end` may lie past the array: a file read box by box passes only each header's bytes.
        package init?(_ bytes: [UInt8], at start: Int, end: Int) {
            guard start >= 0, start <= end else { return nil }
            var reader = ISOBMFFBytes(bytes, start..<end)
            guard reader.position == start, let size32 = reader.u32(), let type = reader.fourCC() else { return nil }
            var size = size32
            if size == 1 {
                guard let large = reader.uint(8) else { return nil }
                size = large
            } else if size == 0 {
                size = end - start
            }
            let length = reader.position - start
            guard size >= length, size <= end - start else { return nil }
            self.type = type
            self.length = length
            self.size = size
        }
    }
}
