import PipelineCore

/// A box inside a byte array, with where it starts: the edits of `AVIFFileRewrite` rename and
/// resize boxes in place, and the core's `ISOBMFFBox` knows its payload only. Every size is
/// checked as `ISOBMFFBox.Header` checks it.
struct AVIFBox {
    let type: String
    let start: Int
    let payload: Range<Int>

    var end: Int { payload.upperBound }
    var range: Range<Int> { start..<end }
    /// Where the box's four-character type is written.
    var typeOffset: Int { start + 4 }

    /// The boxes in `range`, in order, stopping at the first malformed one and after 4096.
    static func children(of bytes: [UInt8], in range: Range<Int>) -> [AVIFBox] {
        var boxes: [AVIFBox] = []
        var start = max(range.lowerBound, 0)
        let end = min(range.upperBound, bytes.count)
        while boxes.count < 4096, let header = ISOBMFFBox.Header(bytes, at: start, end: end) {
            boxes.append(AVIFBox(type: header.type, start: start, payload: start + header.length..<start + header.size))
            start += header.size
        }
        return boxes
    }

    static func child(_ type: String, of bytes: [UInt8], in box: AVIFBox) -> AVIFBox? {
        children(of: bytes, in: box.payload).first { $0.type == type }
    }

    /// A box of `type` around `payload` (32-bit size; callers keep boxes far below 4 GiB).
    static func make(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(payload.count + 8, 4) + Array(type.utf8) + payload
    }
}

/// `value` in `width` big-endian bytes (its low bytes when it does not fit: callers check).
func bigEndian(_ value: Int, _ width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
}

/// Whether `value` fits in `width` unsigned bytes.
func fits(_ value: Int, _ width: Int) -> Bool {
    value >= 0 && (width >= 8 || value < 1 << (8 * width))
}
