import Foundation
import PipelineCore

/// Rotates by any angle, in degrees clockwise as on screen (libvips, CSS, imgproxy's `rot`, the
/// command line's `rotate:DEG`). SDWebImage's `SDImageRotationTransformer` takes counter-clockwise
/// radians: the key prints the angle that way, so keys stay SDWebImage's. With `fitSize` the canvas
/// grows to hold the whole rotated image; otherwise it keeps the input's size and the corners are
/// cut. Uncovered pixels are transparent. Quarter turns are exact pixel moves.
public struct RotationTransformer: PixelTransformer, DescribedTransformer {
    public let degreesClockwise: Double
    package let fitSize: Bool

    public init(degreesClockwise: Double, fitSize: Bool = true) {
        self.degreesClockwise = degreesClockwise
        self.fitSize = fitSize
    }

    /// Angles `rotate:DEG` accepts.
    static let specAngles = -360.0...360.0

    public static let transformerDescription = TransformerDescription<Self>(
        name: "rotate", keyName: "SDImageRotationTransformer",
        parameters: [
            .number("angle", placeholder: "DEG", unit: "degrees clockwise", in: specAngles) { $0.radiansCounterClockwise },
            .fixed("fitSize", summary: "whether the canvas grows to fit", default: true) { $0.fitSize ? "1" : "0" },
        ],
        make: { Self(degreesClockwise: $0["angle"], fitSize: $0["fitSize"]) })

    /// The angle in SDWebImage's convention, for the key and the resampling's trigonometry.
    var radiansCounterClockwise: Double { -degreesClockwise * .pi / 180 }

    /// Counter-clockwise quarter turns (0–3) when the angle is a whole number of them, else nil.
    /// Reduced before converting to an integer: the angle comes from requests and may be huge.
    var quarterTurns: Int? {
        let turns = (-degreesClockwise / 90).truncatingRemainder(dividingBy: 4)
        guard abs(turns - turns.rounded()) < 1e-9 else { return nil }
        return ((Int(turns.rounded()) % 4) + 4) % 4
    }

    /// `unbounded` when the angle is not finite or the canvas too large to count: no pixel limit
    /// admits it, so `apply(to:)` refuses it naming the request's own `maxPixels`.
    public func outputSize(for size: ImageSize) throws -> ImageSize {
        guard degreesClockwise.isFinite else { return Self.unbounded }
        if let turns = quarterTurns, fitSize || turns % 2 == 0 || size.width == size.height {
            return turns % 2 == 0 ? size : ImageSize(width: size.height, height: size.width)
        }
        guard fitSize else { return size }
        // The rotated rectangle's bounding box; a hair below a whole pixel does not add a column.
        let (w, h) = (Double(size.width), Double(size.height))
        let (c, s) = (abs(cos(radiansCounterClockwise)), abs(sin(radiansCounterClockwise)))
        let width = (w * c + h * s - 1e-6).rounded(.up), height = (w * s + h * c - 1e-6).rounded(.up)
        guard width < 0x1p62, height < 0x1p62 else { return Self.unbounded }
        return ImageSize(width: max(Int(width), 1), height: max(Int(height), 1))
    }

    /// A size whose pixel count overflows.
    static let unbounded = ImageSize(width: .max, height: .max)

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        if let turns = quarterTurns {
            // Counter-clockwise quarter turns; a quarter turn without fitSize keeps the input's size.
            let exact: PixelBuffer =
                switch turns {
                case 1: buffer.applying(.left)
                case 2: buffer.applying(.down)
                case 3: buffer.applying(.right)
                default: buffer
                }
            if fitSize || exact.size == buffer.size { return exact }
        }
        return try rotateResampling(buffer)
    }

    private func rotateResampling(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let (w, h) = (Double(buffer.width), Double(buffer.height))
        let (c, s) = (cos(radiansCounterClockwise), sin(radiansCounterClockwise))
        let output = try outputSize(for: buffer.size)
        let (outW, outH) = (output.width, output.height)
        let format = buffer.format.withAlpha
        let source = buffer.converted(to: format)
        let channels = format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: outW, height: outH, format: format))
        let (cxIn, cyIn, cxOut, cyOut) = (w / 2, h / 2, Double(outW) / 2, Double(outH) / 2)
        source.bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                var acc = [Double](repeating: 0, count: channels)
                for oy in 0..<outH {
                    for ox in 0..<outW {
                        // Inverse mapping: y grows downward, so a counter-clockwise turn on screen is
                        // the rotation by the counter-clockwise angle here, applied in reverse.
                        let dx = Double(ox) + 0.5 - cxOut, dy = Double(oy) + 0.5 - cyOut
                        let sx = c * dx - s * dy + cxIn - 0.5
                        let sy = s * dx + c * dy + cyIn - 0.5
                        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                        let fx = sx - Double(x0), fy = sy - Double(y0)
                        for i in 0..<channels { acc[i] = 0 }
                        // Bilinear on premultiplied colour; missing neighbours count as transparent.
                        for (xx, yy, weight) in [
                            (x0, y0, (1 - fx) * (1 - fy)), (x0 + 1, y0, fx * (1 - fy)),
                            (x0, y0 + 1, (1 - fx) * fy), (x0 + 1, y0 + 1, fx * fy),
                        ]
                        where weight > 0 && xx >= 0 && yy >= 0 && xx < buffer.width && yy < buffer.height {
                            let o = (yy * buffer.width + xx) * channels
                            let a = Double(input[o + channels - 1]) * weight
                            for i in 0..<(channels - 1) { acc[i] += Double(input[o + i]) * a }
                            acc[channels - 1] += a
                        }
                        let d = (oy * outW + ox) * channels
                        let alpha = acc[channels - 1]
                        if alpha > 0 {
                            for i in 0..<(channels - 1) { output[d + i] = UInt8(min(acc[i] / alpha, 255).rounded()) }
                            output[d + channels - 1] = UInt8(min(alpha, 255).rounded())
                        }
                    }
                }
            }
        }
        return try PixelBuffer(width: outW, height: outH, format: format, bytes: out)
    }
}
