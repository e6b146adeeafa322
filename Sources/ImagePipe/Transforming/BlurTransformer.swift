import Foundation
import PipelineCore

/// Gaussian blur (SDWebImage's `SDImageBlurTransformer`), approximated as upstream does with vImage:
/// three box blurs whose width comes from the radius (the SVG/W3C formula for a Gaussian of standard
/// deviation `radius`). Linear in the pixel count whatever the radius; alpha is premultiplied.
public struct BlurTransformer: PixelTransformer, DescribedTransformer {
    public let radius: Double
    /// Radii above this are refused with `limitExceeded(.blurRadius)`: requests choose the radius,
    /// and beyond a few hundred pixels a blur only averages the image away.
    public var maxRadius: Double

    /// The largest radius `blur:R` accepts, and `maxRadius` by default.
    @usableFromInline static let defaultMaxRadius = 1000.0

    public init(radius: Double, maxRadius: Double = BlurTransformer.defaultMaxRadius) {
        self.radius = radius.isNaN ? 0 : max(radius, 0)
        self.maxRadius = maxRadius
    }

    public static let transformerDescription = TransformerDescription<Self>(
        name: "blur", keyName: "SDImageBlurTransformer",
        parameters: [.number("radius", placeholder: "R", unit: "pixels", in: 0...defaultMaxRadius) { $0.radius }],
        make: { Self(radius: $0["radius"]) })

    /// The box width: `floor(r * 3 * sqrt(2π) / 4 + 0.5)`, forced odd. Call only within `maxRadius`.
    var boxWidth: Int {
        Int((radius * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down)) | 1
    }

    /// The input's size; throws `limitExceeded(.blurRadius)` over `maxRadius`.
    public func outputSize(for size: ImageSize) throws -> ImageSize {
        try checkRadius()
        return size
    }

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        try checkRadius()
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

    /// Past this the window sums would no longer fit an `Int`, whatever `maxRadius` says.
    private static let arithmeticLimit = 1e12

    private func checkRadius() throws {
        let limit = min(maxRadius, Self.arithmeticLimit)
        guard radius <= limit else {
            throw ImagePipeError.limitExceeded(
                .blurRadius, value: radius < 0x1p62 ? Int(radius.rounded(.up)) : .max,
                maximum: Int(max(limit, 0).rounded(.down)))
        }
    }

    /// Blurs `count` lines of `length` pixels with a running sum; edges repeat the border pixel.
    /// `stride` steps between pixels of a line, `step` between lines. The first window's sum counts
    /// the repeated edge pixels instead of visiting them, so a window wider than the line costs no
    /// more than the line: the work is linear in the pixels, whatever the width.
    private static func boxBlur(_ input: inout [UInt8], into output: inout [UInt8], count: Int, length: Int, stride: Int, step: Int, channels: Int, width: Int) {
        let half = width / 2
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                var sums = [Int](repeating: 0, count: channels)
                for line in 0..<count {
                    let base = line * step
                    @inline(__always) func at(_ i: Int, _ c: Int) -> Int { Int(src[base + min(max(i, 0), length - 1) * stride + c]) }
                    for c in 0..<channels {
                        // Window -half...half: `half` copies of pixel 0 left of the line, the line's
                        // pixels up to `half`, and copies of the last pixel past its end.
                        let inside = min(half, length - 1)
                        var sum = half * at(0, c) + (half - inside) * at(length - 1, c)
                        for i in 0...inside { sum += at(i, c) }
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

extension ImagePipeError.Limit {
    /// A blur's radius: `BlurTransformer.maxRadius`.
    static let blurRadius = ImagePipeError.Limit(name: "blurRadius", setting: "BlurTransformer.maxRadius")
}
