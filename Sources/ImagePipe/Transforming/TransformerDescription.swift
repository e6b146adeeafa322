/// A transformer as data: the name specs call it by, the name its cache key starts with, and its
/// parameters in order. Its `key`, its `--transform` spec (`name:field:field…`) and its usage text
/// all derive from this one description, as libvips derives its operations' command lines from
/// their declared arguments. A plugin describes its transformer the same way (see `Plugins.md`).
import PipelineCore

public struct TransformerDescription<Transformer: ImageTransformer>: Sendable {
    /// The spec's name, matched case-insensitively, e.g. `resize`.
    public let name: String
    /// Other names specs may use, e.g. `greyscale`.
    public let aliases: [String]
    /// What the key starts with, e.g. `SDImageResizingTransformer`.
    public let keyName: String
    let parameters: [TransformerParameter<Transformer>]
    private let make: @Sendable (TransformerArguments) -> Transformer

    /// `make` builds the transformer from the parameters' values, read by name
    /// (`arguments["radius"]`); every value is in its range by then.
    public init(
        name: String, aliases: [String] = [], keyName: String, parameters: [TransformerParameter<Transformer>],
        make: @escaping @Sendable (TransformerArguments) -> Transformer
    ) {
        self.name = name
        self.aliases = aliases
        self.keyName = keyName
        self.parameters = parameters
        self.make = make
    }

    /// `keyName(p1,p2,…)`: every parameter's key text, in order. Equal keys mean equal parameters,
    /// so equal outputs from equal inputs.
    public func key(for transformer: Transformer) -> String {
        "\(keyName)(\(parameters.compactMap { $0.keyText(transformer) }.joined(separator: ",")))"
    }

    /// The spelling, e.g. `resize:WxH[:fill|fit|cover]`: optional fields in brackets.
    public var usage: String {
        parameters.reduce(name) { text, parameter in
            guard let placeholder = parameter.placeholder else { return text }
            return parameter.defaultValue == nil ? "\(text):\(placeholder)" : "\(text)[:\(placeholder)]"
        }
    }

    /// One line per spelled parameter: its placeholder, type, unit, range and default.
    public var parameterHelp: [String] {
        parameters.compactMap { parameter in parameter.placeholder.map { "\($0): \(parameter.summary)" } }
    }

    /// The transformer `argument` (the text after `name:`, nil when there was no colon) spells.
    /// Fields are split at `:`; an empty optional field means its default.
    public func parse(argument: String?) throws(TransformerParameterError) -> Transformer {
        let spelled = parameters.filter(\.isSpelled)
        guard let argument else {
            if let missing = spelled.first(where: { $0.defaultValue == nil }) {
                throw TransformerParameterError("'\(name)' needs \(missing.name): \(usage)")
            }
            return make(TransformerArguments(defaults: parameters))
        }
        guard !spelled.isEmpty else { throw TransformerParameterError("\(name) takes no argument") }
        let fields = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count <= spelled.count else { throw TransformerParameterError("expected \(usage)") }
        var arguments = TransformerArguments(defaults: parameters)
        for (index, parameter) in spelled.enumerated() {
            let field = index < fields.count ? fields[index] : ""
            if field.isEmpty, parameter.defaultValue != nil { continue }
            arguments.values[parameter.name] = try parameter.parse(field)
        }
        return make(arguments)
    }
}

/// The parameters' values a description's `make` reads, by name and type:
/// `BlurTransformer(radius: arguments["radius"])`.
public struct TransformerArguments: Sendable {
    var values: [String: any Sendable]

    init<Transformer>(defaults parameters: [TransformerParameter<Transformer>]) {
        values = [:]
        for parameter in parameters { values[parameter.name] = parameter.defaultValue }
    }

    /// The value of the parameter `name`. A name or type the description does not declare is a
    /// programming error in that description.
    public subscript<Value>(_ name: String) -> Value {
        guard let value = values[name] as? Value else {
            preconditionFailure("transformer parameter '\(name)' has no \(Value.self) value")
        }
        return value
    }
}

/// A transformer whose key derives from its description.
public protocol DescribedTransformer: ImageTransformer {
    static var transformerDescription: TransformerDescription<Self> { get }
}

extension DescribedTransformer {
    public var key: String { Self.transformerDescription.key(for: self) }
}
