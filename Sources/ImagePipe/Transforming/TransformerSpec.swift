/// Transformers written as text, the command line's `--transform` spelling: `name[:field[:field…]]`,
/// parsed through each transformer's `TransformerDescription`, as libvips treats operations as data.
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
///
/// `TransformerSpec.builtIn` knows these; `TransformerSpec(builtIn.spellings + [MyTransformer.transformerDescription])`
/// also knows a plugin's.
import PipelineCore

public struct TransformerSpec: Sendable {
    /// Why a spec was refused, in words a person at a shell can act on.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let spec: String
        public let reason: String
        public var description: String { "invalid transform '\(spec)': \(reason)" }
    }

    /// The largest width, height, offset or radius a spec may give (libvips's `VIPS_MAX_COORD`):
    /// well above any real image, far enough below `Int.max` that no size or offset arithmetic
    /// overflows. Outputs over the pixel limit are refused when the transformer runs.
    static let maxCoordinate = 10_000_000
    /// Widths and heights specs accept.
    package static let sides = 1...maxCoordinate
    /// Offsets specs accept.
    static let offsets = -maxCoordinate...maxCoordinate

    /// The transformers this spec knows, in the order the usage lists them.
    public let spellings: [any TransformerSpelling]

    public init(_ spellings: [any TransformerSpelling]) {
        self.spellings = spellings
    }

    /// The built-in transformers.
    public static let builtIn = TransformerSpec([
        ResizingTransformer.transformerDescription, CroppingTransformer.transformerDescription,
        RoundCornerTransformer.transformerDescription, RotationTransformer.transformerDescription,
        FlippingTransformer.transformerDescription, TintTransformer.transformerDescription,
        GrayscaleTransformer.transformerDescription, BlurTransformer.transformerDescription,
    ])

    /// Every spelling on one line, for help texts.
    public var usage: String { spellings.map(\.usage).joined(separator: ", ") }

    /// Every spelling with its parameters' types, units, ranges and defaults, one line each.
    public var help: String {
        spellings.map { spelling in
            ([spelling.usage] + spelling.parameterHelp).joined(separator: "\n    ")
        }.joined(separator: "\n")
    }

    public func parse(_ spec: String) throws -> any ImageTransformer {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0].lowercased()
        let argument = parts.count > 1 ? String(parts[1]) : nil
        guard let spelling = spellings.first(where: { $0.name == name || $0.aliases.contains(name) }) else {
            throw ParseError(spec: spec, reason: "unknown transform '\(name)'; known: \(usage)")
        }
        do {
            return try spelling.parseTransformer(argument: argument)
        } catch {
            throw ParseError(spec: spec, reason: error.reason)
        }
    }

    /// Several specs chained in order; one spec gives its transformer, none gives nil.
    public func parse(_ specs: [String]) throws -> (any ImageTransformer)? {
        let transformers = try specs.map { try parse($0) }
        switch transformers.count {
        case 0: return nil
        case 1: return transformers[0]
        default: return PipelineTransformer(transformers)
        }
    }

    /// The built-ins' spellings on one line.
    package static var usage: String { builtIn.usage }
    /// `builtIn.parse(spec)`.
    package static func parse(_ spec: String) throws -> any ImageTransformer { try builtIn.parse(spec) }
    /// `builtIn.parse(specs)`.
    package static func parse(_ specs: [String]) throws -> (any ImageTransformer)? { try builtIn.parse(specs) }
}

/// A `TransformerDescription` whatever its transformer type, as `TransformerSpec` holds them.
public protocol TransformerSpelling: Sendable {
    var name: String { get }
    var aliases: [String] { get }
    var usage: String { get }
    var parameterHelp: [String] { get }
    func parseTransformer(argument: String?) throws(TransformerParameterError) -> any ImageTransformer
}

extension TransformerDescription: TransformerSpelling {
    public func parseTransformer(argument: String?) throws(TransformerParameterError) -> any ImageTransformer {
        try parse(argument: argument)
    }
}
