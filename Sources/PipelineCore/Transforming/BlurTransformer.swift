import Foundation

/// Gaussian blur (SDWebImage's `SDImageBlurTransformer`), approximated as upstream does with vImage:
/// three box blurs whose width comes from the radius (the SVG/W3C formula for a Gaussian of standard
/// deviation `radius`). Linear in the pixel count whatever the radius; alpha is premultiplied.
public struct BlurTransformer: PixelTransformer {
    public let radius: Double

    public init(radius: Double) {
        self.radius = max(radius, 0)
    }

    public var key: String { "SDImageBlurTransformer(\(keyNumber(radius)))" }

    /// The box width: `floor(r * 3 * sqrt(2π) / 4 + 0.5)`, forced odd.
    var boxWidth: Int {
        Int((radius * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down)) | 1
    }

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let width = boxWidth
        guard width > 1 else { return buffer }
        var pixels = buffer.format.hasAlpha ? Resampler.premultiplied(buffer) : buffer
        var bytes = pixels.bytes
        let channels = buffer.format.bytesPerPixel
        var scratch = [UInt8](repeating: 0, count: bytes.count)
        for _ in 0..<3 {
            Self.boxBlur(&bytes, into: &scratch, count: buffer.height, length: buffer.width, stride: channels, step: buffer.width * channels, channels: channels, width: width)
            Self.boxBlur(&scratch, into: &bytes, count: buffer.width, length: buffer.height, stride: buffer.width * channels, step: channels, channels: channels, width: width)
        }
        pixels = PixelBuffer(unchecked: buffer.width, height: buffer.height, format: buffer.format, bytes: bytes)
        return buffer.format.hasAlpha ? Resampler.unpremultiplied(pixels) : pixels
    }

    /// Blurs `count` lines of `length` pixels with a running sum; edges repeat the border pixel.
    /// `stride` steps between pixels of a line, `step` between lines.
    private static func boxBlur(_ input: inout [UInt8], into output: inout [UInt8], count: Int, length: Int, stride: Int, step: Int, channels: Int, width: Int) {
        let half = width / 2
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                var sums = [Int](repeating: 0, count: channels)
                for line in 0..<count {
                    let base = line * step
                    @inline(__always) func at(_ i: Int, _ c: Int) -> Int { Int(src[base + min(max(i, 0), length - 1) * stride + c]) }
                    for c in 0..<channels {
                        var sum = 0
                        for i in -half...half { sum += at(i, c) }
                        sums[c] = sum
                    }
                    for i in 0..<length {
                        for c in 0..<channels {
                            dst[base + i * stride + c] = UInt8((sums[c] + half) / width)
                            sums[c] += at(i + half + 1, c) - at(i - half, c)
                        }
                    }
                }
            }
        }
    }
}
