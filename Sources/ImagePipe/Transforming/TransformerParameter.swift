import Foundation
import PipelineCore

/// One parameter of a described transformer: its name, type, unit, range and default, how a
/// `--transform` spec writes it (a field after the name, fields separated by `:`) and how the cache
/// key prints it. Made with the factories below, one per type, so every number in every key is
/// printed and every range checked the same way.
///
/// A parameter with a default may be left out of a spec (trailing fields only); one made with
/// `fixed` is not spelled at all: specs always get its default, the key still records it.
public struct TransformerParameter<Transformer>: Sendable {
    public let name: String
    /// What the usage text shows for it, e.g. `WxH`, `R`, `fill|fit|cover`; nil when not spelled.
    let placeholder: String?
    /// Its type, unit and range in words, e.g. `number, degrees clockwise, -360 to 360`.
    let summary: String
    /// What a spec without it gets; nil when a spec must give it.
    let defaultValue: (any Sendable)?
    let parse: @Sendable (String) throws(TransformerParameterError) -> any Sendable
    /// Its text in the cache key; nil leaves it out (a default older keys did not print).
    let keyText: @Sendable (Transformer) -> String?

    var isSpelled: Bool { placeholder != nil }

    /// A parameter of any type: `parse` reads a spec field (throwing a reason a person can act on),
    /// `keyText` prints the transformer's value for the key (nil: left out of it).
    public init(
        _ name: String, placeholder: String?, summary: String, default defaultValue: (any Sendable)? = nil,
        parse: @escaping @Sendable (String) throws(TransformerParameterError) -> any Sendable,
        keyText: @escaping @Sendable (Transformer) -> String?
    ) {
        self.name = name
        self.placeholder = placeholder
        self.summary = summary
        self.defaultValue = defaultValue
        self.parse = parse
        self.keyText = keyText
    }
}

/// Why a spec field was refused, e.g. `radius must be from 0 to 1000`.
public struct TransformerParameterError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

extension TransformerParameter {
    /// A number in `range`; the key prints `value` of the transformer as `%f`.
    public static func number(
        _ name: String, placeholder: String, unit: String, in range: ClosedRange<Double>,
        default defaultValue: Double? = nil,
        key value: @escaping @Sendable (Transformer) -> Double
    ) -> Self {
        Self(
            name, placeholder: placeholder, summary: "number, \(unit), \(range.spelled)" + (defaultValue.map { ", default \(shortNumber($0))" } ?? ""), default: defaultValue,
            parse: { text throws(TransformerParameterError) in
                guard let number = Double(text), number.isFinite else { throw TransformerParameterError("\(name) '\(text)' is not a number") }
                guard range.contains(number) else { throw TransformerParameterError("\(name) must be from \(range.spelled)") }
                return number
            },
            keyText: { keyNumber(value($0)) })
    }

    /// A size `WxH` in pixels, both sides in `sides`; the key prints `{W,H}`.
    public static func size(
        _ name: String, sides: ClosedRange<Int>,
        key value: @escaping @Sendable (Transformer) -> ImageSize
    ) -> Self {
        Self(
            name, placeholder: "WxH", summary: "size in pixels, sides \(sides.spelled)",
            parse: { text throws(TransformerParameterError) in
                guard let size = ImageSize(parsing: text), sides.contains(size.width), sides.contains(size.height) else {
                    throw TransformerParameterError("\(name) must be WxH with W and H \(sides.spelledFrom)")
                }
                return size
            },
            keyText: {
                let size = value($0)
                return "{\(keyNumber(Double(size.width))),\(keyNumber(Double(size.height)))}"
            })
    }

    /// A rectangle `X,Y,W,H` in whole pixels: X and Y in `offsets`, W and H in `sides`; the key
    /// prints `{X,Y,W,H}`.
    public static func rectangle(
        _ name: String, offsets: ClosedRange<Int>, sides: ClosedRange<Int>,
        key value: @escaping @Sendable (Transformer) -> ImageRect
    ) -> Self {
        Self(
            name, placeholder: "X,Y,W,H", summary: "rectangle in pixels, X and Y \(offsets.spelled), W and H \(sides.spelled)",
            parse: { text throws(TransformerParameterError) in
                let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard fields.count == 4, let x = fields[0], let y = fields[1], let w = fields[2], let h = fields[3] else {
                    throw TransformerParameterError("\(name) must be X,Y,W,H in whole pixels")
                }
                guard offsets.contains(x), offsets.contains(y) else { throw TransformerParameterError("X and Y must be \(offsets.spelledFrom)") }
                guard sides.contains(w), sides.contains(h) else { throw TransformerParameterError("width and height must be \(sides.spelledFrom)") }
                return ImageRect(x: x, y: y, width: w, height: h)
            },
            keyText: {
                let r = value($0)
                return "{\([r.x, r.y, r.width, r.height].map { keyNumber(Double($0)) }.joined(separator: ","))}"
            })
    }

    /// A colour `#RRGGBB[AA]`; the key prints SDWebImage's `#aarrggbb`.
    public static func color(
        _ name: String, default defaultValue: ImageColor? = nil,
        key value: @escaping @Sendable (Transformer) -> ImageColor
    ) -> Self {
        Self(
            name, placeholder: "#RRGGBB[AA]", summary: "colour, #RRGGBB or #RRGGBBAA", default: defaultValue,
            parse: { text throws(TransformerParameterError) in
                guard let color = ImageColor(hex: text) else { throw TransformerParameterError("\(name) must be #RRGGBB or #RRGGBBAA") }
                return color
            },
            keyText: { value($0).keyDescription })
    }

    /// One of a few words, case-insensitive; each choice lists its spellings, the first shown in the
    /// usage. The key prints `keyText` of the transformer.
    public static func choice<Value: Sendable & Equatable>(
        _ name: String, _ choices: [(spellings: [String], value: Value)],
        default defaultValue: Value? = nil,
        keyText: @escaping @Sendable (Transformer) -> String?
    ) -> Self {
        let shown = choices.map { $0.spellings[0] }
        let table = choices.flatMap { choice in choice.spellings.map { ($0.lowercased(), choice.value) } }
        let defaultSpelling = choices.first { $0.value == defaultValue }.map { ", default \($0.spellings[0])" } ?? ""
        let list = shown.count > 1 ? shown.dropLast().joined(separator: ", ") + " or " + shown.last! : shown.joined()
        return Self(
            name, placeholder: shown.joined(separator: "|"), summary: "one of \(shown.joined(separator: ", "))" + defaultSpelling, default: defaultValue,
            parse: { text throws(TransformerParameterError) in
                guard let value = table.first(where: { $0.0 == text.lowercased() })?.1 else {
                    throw TransformerParameterError("\(name) must be \(list)")
                }
                return value
            },
            keyText: keyText)
    }

    /// A parameter specs do not spell: they always get `defaultValue`; the key prints `keyText`.
    public static func fixed<Value: Sendable>(
        _ name: String, summary: String, default defaultValue: Value,
        keyText: @escaping @Sendable (Transformer) -> String?
    ) -> Self {
        Self(
            name, placeholder: nil, summary: summary, default: defaultValue,
            parse: { _ throws(TransformerParameterError) in defaultValue }, keyText: keyText)
    }
}

/// How SDWebImage prints numbers in transformer keys (`%f`).
func keyNumber(_ value: Double) -> String { String(format: "%f", value) }

/// `360` rather than `360.0` in messages.
private func shortNumber(_ value: some Numeric) -> String {
    if let double = value as? Double, double == double.rounded(), abs(double) < 0x1p62 { return String(Int(double)) }
    return "\(value)"
}

extension ClosedRange where Bound: Numeric {
    /// `0 to 1000`.
    fileprivate var spelled: String { "\(shortNumber(lowerBound)) to \(shortNumber(upperBound))" }
    fileprivate var spelledFrom: String { "from \(spelled)" }
}
