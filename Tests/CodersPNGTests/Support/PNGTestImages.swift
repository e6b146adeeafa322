import Foundation
import PipelineCore
import TestSupport

/// Builders and comparisons shared by the PNG tests.
enum PNGTestImages {
    /// A smooth gradient with some structure, so a resample or a lossy round trip has something to
    /// get wrong.
    static func gradient(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * format.bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt8((x * 255) / max(width - 1, 1))
                let g = UInt8((y * 255) / max(height - 1, 1))
                let b = UInt8(((x / 8 + y / 8) % 2) * 200 + 20)
                let a = UInt8(255 - (x * 200) / max(width - 1, 1))
                switch format {
                case .gray8: bytes += [r]
                case .grayAlpha8: bytes += [r, a]
                case .rgb8: bytes += [r, g, b]
                case .rgba8: bytes += [r, g, b, a]
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// Smooth shading plus grain, like a photo: rows differ enough that the writer picks different
    /// filters for them, and deflate has something to work at.
    static func photo(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * format.bytesPerPixel)
        var seed: UInt32 = 0x9E37_79B9
        func grain() -> Int {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int(seed >> 28) - 8
        }
        func channel(_ base: Int) -> UInt8 { UInt8(clamping: base + grain()) }
        for y in 0..<height {
            for x in 0..<width {
                let shade = (x * 180) / max(width - 1, 1) + (y * 60) / max(height - 1, 1)
                let pixel = [channel(shade), channel(255 - shade), channel((shade + y * 3) % 256), channel(128 + (x % 64))]
                bytes += pixel.prefix(format.channelCount)
            }
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// The largest difference of any channel, both images widened to RGBA first.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.size == b.size, "sizes differ: \(a.size) vs \(b.size)")
        let x = a.converted(to: .rgba8).bytes, y = b.converted(to: .rgba8).bytes
        var worst = 0
        for i in 0..<x.count { worst = max(worst, abs(Int(x[i]) - Int(y[i]))) }
        return worst
    }

    /// PNG chunk bytes with a correct CRC, for crafting damaged or hostile files.
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        return be32(payload.count) + typed + be32(Int(crc32(typed)))
    }

    static func ihdr(width: Int, height: Int, bitDepth: UInt8 = 8, colorType: UInt8 = 2) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0])
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    /// Splits a PNG into its chunks (type, whole chunk bytes) after the signature.
    static func chunks(of data: Data) -> [(type: String, bytes: [UInt8])] {
        let bytes = [UInt8](data)
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 12 + length
            guard end <= bytes.count else { break }
            result.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), Array(bytes[offset..<end])))
            offset = end
        }
        return result
    }
}
