import Foundation

/// A transformer written as text, the command line's `--transform` spelling: one parser and one
/// description for every built-in, as libvips treats operations as data.
///
/// | spec | transformer |
/// |---|---|
/// | `resize:WxH[:fill\|fit\|cover]` | `ResizingTransformer` (default `fill`) |
/// | `crop:X,Y,W,H` | `CroppingTransformer` |
/// | `round:R` | `RoundCornerTransformer`, all corners |
/// | `rotate:DEG` | `RotationTransformer`, degrees clockwise, canvas grows to fit |
/// | `flip:h\|v\|hv` | `FlippingTransformer` |
/// | `tint:#RRGGBB[AA]` | `TintTransformer`, source-atop (a translucent tint keeps the photo) |
/// | `grayscale` | `GrayscaleTransformer` |
/// | `blur:R` | `BlurTransformer` |
public enum TransformerSpec {
    /// Why a spec was refused, in words a person at a shell can act on.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let spec: String
        public let reason: String
        public var description: String { "invalid transform '\(spec)': \(reason)" }
    }

    /// The largest width, height, offset or radius a spec may give (libvips's `VIPS_MAX_COORD`):
    /// well above any real image, far enough below `Int.max` that no size or offset arithmetic
    /// overflows. Outputs over the pixel limit are refused when the transformer runs.
    public static let maxCoordinate = 10_000_000
    /// Angles `rotate:DEG` accepts.
    static let angles = -360.0...360.0
    /// Radii `blur:R` accepts: the transformer's own default maximum.
    static let blurRadii = 0.0...BlurTransformer.defaultMaxRadius

    /// Every spelling, for help texts.
    public static let usage = "resize:WxH[:fill|fit|cover], crop:X,Y,W,H, round:R, rotate:DEG, flip:h|v|hv, tint:#RRGGBB[AA], grayscale, blur:R"

    public static func parse(_ spec: String) throws -> any ImageTransformer {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        let argument = parts.count > 1 ? parts[1] : nil
        func fail(_ reason: String) -> ParseError { ParseError(spec: spec, reason: reason) }
        func number(_ text: String, _ what: String, in range: ClosedRange<Double>) throws -> Double {
            guard let value = Double(text), value.isFinite else { throw fail("\(what) '\(text)' is not a number") }
            guard range.contains(value) else { throw fail("\(what) must be from \(Self.shortNumber(range.lowerBound)) to \(Self.shortNumber(range.upperBound))") }
            return value
        }
        let sides = 1...maxCoordinate, offsets = -maxCoordinate...maxCoordinate
        func required() throws -> String {
            guard let argument, !argument.isEmpty else { throw fail("'\(name)' needs an argument (\(usage))") }
            return argument
        }
        switch name {
        case "resize":
            let fields = try required().split(separator: ":").map(String.init)
            guard let first = fields.first, let size = ImageSize(parsing: first), sides.contains(size.width), sides.contains(size.height) else {
                throw fail("size must be WxH with W and H from 1 to \(maxCoordinate)")
            }
            var mode = ResizingTransformer.ScaleMode.fill
            if fields.count > 1 {
                switch fields[1].lowercased() {
                case "fill": mode = .fill
                case "fit": mode = .aspectFit
                case "cover": mode = .aspectFill
                default: throw fail("mode must be fill, fit or cover")
                }
            }
            guard fields.count <= 2 else { throw fail("expected resize:WxH[:fill|fit|cover]") }
            return ResizingTransformer(size: size, scaleMode: mode)
        case "crop":
            let fields = try required().split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard fields.count == 4, let x = fields[0], let y = fields[1], let w = fields[2], let h = fields[3] else {
                throw fail("expected crop:X,Y,W,H in whole pixels")
            }
            guard offsets.contains(x), offsets.contains(y) else { throw fail("X and Y must be from -\(maxCoordinate) to \(maxCoordinate)") }
            guard sides.contains(w), sides.contains(h) else { throw fail("width and height must be from 1 to \(maxCoordinate)") }
            return CroppingTransformer(rect: ImageRect(x: x, y: y, width: w, height: h))
        case "round":
            return RoundCornerTransformer(radius: try number(try required(), "radius", in: 0...Double(maxCoordinate)))
        case "rotate":
            return RotationTransformer(degreesClockwise: try number(try required(), "angle", in: angles), fitSize: true)
        case "flip":
            switch try required().lowercased() {
            case "h": return FlippingTransformer(horizontal: true, vertical: false)
            case "v": return FlippingTransformer(horizontal: false, vertical: true)
            case "hv", "vh": return FlippingTransformer(horizontal: true, vertical: true)
            default: throw fail("expected flip:h, flip:v or flip:hv")
            }
        case "tint":
            guard let color = ImageColor(hex: try required()) else { throw fail("colour must be #RRGGBB or #RRGGBBAA") }
            return TintTransformer(color: color, blendMode: .sourceAtop)
        case "grayscale", "greyscale":
            guard argument == nil else { throw fail("grayscale takes no argument") }
            return GrayscaleTransformer()
        case "blur":
            return BlurTransformer(radius: try number(try required(), "radius", in: blurRadii))
        default:
            throw fail("unknown transform '\(name)'; known: \(usage)")
        }
    }

    /// `360` rather than `360.0` in messages.
    private static func shortNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Several specs chained in order; one spec gives its transformer, none gives nil.
    public static func parse(_ specs: [String]) throws -> (any ImageTransformer)? {
        let transformers = try specs.map { try parse($0) }
        switch transformers.count {
        case 0: return nil
        case 1: return transformers[0]
        default: return PipelineTransformer(transformers)
        }
    }
}
