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

    /// Every spelling, for help texts.
    public static let usage = "resize:WxH[:fill|fit|cover], crop:X,Y,W,H, round:R, rotate:DEG, flip:h|v|hv, tint:#RRGGBB[AA], grayscale, blur:R"

    public static func parse(_ spec: String) throws -> any ImageTransformer {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        let argument = parts.count > 1 ? parts[1] : nil
        func fail(_ reason: String) -> ParseError { ParseError(spec: spec, reason: reason) }
        func number(_ text: String, _ what: String) throws -> Double {
            guard let value = Double(text), value.isFinite else { throw fail("\(what) '\(text)' is not a number") }
            return value
        }
        func required() throws -> String {
            guard let argument, !argument.isEmpty else { throw fail("'\(name)' needs an argument (\(usage))") }
            return argument
        }
        switch name {
        case "resize":
            let fields = try required().split(separator: ":").map(String.init)
            guard let size = ImageSize(parsing: fields[0]), !size.isEmpty else { throw fail("size must be WxH with W and H above 0") }
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
            guard w > 0, h > 0 else { throw fail("width and height must be above 0") }
            return CroppingTransformer(rect: ImageRect(x: x, y: y, width: w, height: h))
        case "round":
            let radius = try number(try required(), "radius")
            guard radius >= 0 else { throw fail("radius must not be negative") }
            return RoundCornerTransformer(radius: radius)
        case "rotate":
            return RotationTransformer(degreesClockwise: try number(try required(), "angle"), fitSize: true)
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
            let radius = try number(try required(), "radius")
            guard radius >= 0, radius <= 1000 else { throw fail("radius must be between 0 and 1000") }
            return BlurTransformer(radius: radius)
        default:
            throw fail("unknown transform '\(name)'; known: \(usage)")
        }
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
