import CZlib
import Foundation

/// Writes 8-bit RGB or RGBA PNGs with zlib alone, so tests can hand the command-line encoders
/// (avifenc, heif-enc) inputs without depending on the coder under test.
public enum TestPNGWriter {
    /// `rgba` holds 4 bytes a pixel; with `alpha` false the alpha bytes are left out.
    public static func png(width: Int, height: Int, rgba: [UInt8], alpha: Bool) -> Data {
        let channels = alpha ? 4 : 3
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * channels + 1))
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width {
                let o = (y * width + x) * 4
                raw += rgba[o..<o + channels]
            }
        }
        var length = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        precondition(compress2(&compressed, &length, raw, uLong(raw.count), 6) == Z_OK)
        let header = HostileImages.be32(width) + HostileImages.be32(height) + [8, alpha ? 6 : 2, 0, 0, 0]
        return Data(
            HostileImages.pngSignature + HostileImages.pngChunk("IHDR", header)
                + HostileImages.pngChunk("IDAT", Array(compressed.prefix(Int(length)))) + HostileImages.pngChunk("IEND", []))
    }

    /// An opaque gray RGB PNG of one `value`, built row-wise without a pixel loop: cheap even at
    /// tens of megapixels, and a few kilobytes once compressed.
    public static func solid(width: Int, height: Int, value: UInt8) -> Data {
        let rowBytes = width * 3 + 1
        var raw = [UInt8](repeating: value, count: height * rowBytes)
        for y in 0..<height { raw[y * rowBytes] = 0 }
        var length = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        precondition(compress2(&compressed, &length, raw, uLong(raw.count), 6) == Z_OK)
        let header = HostileImages.be32(width) + HostileImages.be32(height) + [8, 2, 0, 0, 0]
        return Data(
            HostileImages.pngSignature + HostileImages.pngChunk("IHDR", header)
                + HostileImages.pngChunk("IDAT", Array(compressed.prefix(Int(length)))) + HostileImages.pngChunk("IEND", []))
    }

    /// A deterministic test picture: gradients with a checker of hard edges, so lossy coders have
    /// both smooth areas and detail; with `alpha`, opacity ramps from 0 at the left to 255.
    public static func pattern(width: Int, height: Int, alpha: Bool, seed: Int = 0) -> [UInt8] {
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let checker = ((x + seed * 3) / 8 + y / 8) % 2 == 0
                rgba[o] = UInt8((x * 255) / max(width - 1, 1))
                rgba[o + 1] = UInt8((y * 255) / max(height - 1, 1))
                rgba[o + 2] = checker ? UInt8((seed * 60) % 256) : 200
                if alpha { rgba[o + 3] = UInt8((x * 255) / max(width - 1, 1)) }
            }
        }
        return rgba
    }
}
