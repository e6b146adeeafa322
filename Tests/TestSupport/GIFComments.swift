import Foundation

/// Puts a large comment extension into a GIF, so its first frame sits early or late in a big file:
/// what a first-frame-only load must read to, or may stop before.
public enum GIFComments {
    /// `gif` with a comment of `bytes` bytes (in 255-byte sub-blocks) inserted before the record
    /// that follows the `afterImages`-th image block (0: before the first extension or image).
    public static func inserting(_ bytes: Int, into gif: Data, afterImages: Int) -> Data {
        let file = [UInt8](gif)
        var position = 13 + (file[10] & 0x80 != 0 ? 3 << (Int(file[10] & 7) + 1) : 0)
        func skipSubBlocks() {
            while position < file.count {
                let length = Int(file[position])
                position += 1 + length
                if length == 0 { return }
            }
        }
        var images = 0
        while images < afterImages, position < file.count, file[position] != 0x3B {
            if file[position] == 0x2C {
                let flags = file[position + 9]
                position += 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
                images += 1
            } else {
                position += 2
            }
            skipSubBlocks()
        }
        var comment: [UInt8] = [0x21, 0xFE]
        var left = bytes
        while left > 0 {
            let length = min(255, left)
            comment += [UInt8(length)] + [UInt8](repeating: 0x2E, count: length)
            left -= length
        }
        comment.append(0)
        return Data(file[..<position] + comment + file[position...])
    }
}
