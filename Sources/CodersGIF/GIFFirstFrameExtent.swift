import Foundation
import PipelineCore

/// Where a GIF's first image block ends, walked over the raw records as `GIFIndex` reads them with
/// `firstFrameOnly` (header, colour table, extensions, then the first image's descriptor, colour
/// table, code size and data sub-blocks, up to and with their terminator), counting lengths only.
/// Anything `GIFIndex` treats specially (an empty block, no image before the trailer, an unknown
/// record) answers `.unknown`, so such files are read and judged whole, as before.
enum GIFFirstFrameExtent {
    static func of(_ prefix: Data) -> ImageFirstFrameExtent {
        prefix.withUnsafeBytes { bytes in
            let count = bytes.count
            guard count >= 13 else { return .needsMoreBytes }
            guard bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else { return .unknown }
            var position = 13 + colorTableLength(flags: bytes[10])
            /// Moves past a run of sub-blocks and its terminator; false when the prefix ends first.
            func skipSubBlocks() -> Bool {
                while position < count {
                    let length = Int(bytes[position])
                    position += 1 + length
                    if length == 0 { return true }
                }
                return false
            }
            while position < count {
                switch bytes[position] {
                case 0x21:
                    position += 2
                    guard skipSubBlocks() else { return .needsMoreBytes }
                case 0x2C:
                    guard position + 10 <= count else { return .needsMoreBytes }
                    let width = Int(bytes[position + 5]) | Int(bytes[position + 6]) << 8
                    let height = Int(bytes[position + 7]) | Int(bytes[position + 8]) << 8
                    guard width > 0, height > 0 else { return .unknown }
                    position += 10 + colorTableLength(flags: bytes[position + 9]) + 1
                    return skipSubBlocks() ? .endsAt(position) : .needsMoreBytes
                default:
                    return .unknown
                }
            }
            return .needsMoreBytes
        }
    }

    /// Bytes of the colour table a screen or image descriptor's packed field announces.
    private static func colorTableLength(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 7) + 1)
    }
}
