import Foundation

/// One JSON object on one line, fields in the order given (the `--json` contract names the fields;
/// a stable order makes the output diffable).
package struct JSONLine {
    package enum Value {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case ints([Int])
        case strings([String])
        case null
    }

    private var fields: [(String, Value)] = []

    package init() {}

    package mutating func add(_ key: String, _ value: Value) { fields.append((key, value)) }
    package mutating func add(_ key: String, _ value: String?) { add(key, value.map(Value.string) ?? .null) }
    package mutating func add(_ key: String, _ value: Int) { add(key, .int(value)) }
    package mutating func add(_ key: String, _ value: Bool) { add(key, .bool(value)) }

    package var text: String {
        "{" + fields.map { "\(Self.quote($0.0)):\(Self.render($0.1))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .string(let text): quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        case .ints(let numbers): "[" + numbers.map(String.init).joined(separator: ",") + "]"
        case .strings(let texts): "[" + texts.map(quote).joined(separator: ",") + "]"
        case .null: "null"
        }
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Beyond what JSON requires: DEL, C1 and direction overrides too, so a line shown on a
            // terminal never drives it.
            case _ where TerminalEscaping.isControl(scalar): out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
