import Foundation
import PipelineCore

/// How the tool shows what a decoder recovered from: one line per warning on standard error,
/// `imagepipe: SOURCE: warning: MESSAGE`, and the messages as the `warnings` JSON array.
enum DecodeWarnings {
    static func report(_ warnings: [ImageDecodeWarning], source: String) {
        for warning in warnings {
            Console.err("imagepipe: \(escaped(source)): warning: \(escaped(warning.message))")
        }
    }

    /// The `warnings` field: present on every line, empty when the decode was clean, so readers
    /// need not tell a missing field from no warnings.
    static func json(_ warnings: [ImageDecodeWarning]) -> JSONLine.Value {
        .strings(warnings.map(\.message))
    }

    /// Control characters shown as escapes, so a source name or library text can neither forge
    /// lines nor send terminal sequences.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += String(format: "\\x%02x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A source refused under `--fail-on-warning`: it decoded, but with warnings (already printed).
struct FailedOnWarning: Error, CustomStringConvertible {
    let count: Int

    var description: String {
        "refused: the decoder reported \(count == 1 ? "a warning" : "\(count) warnings") and --fail-on-warning is set"
    }
}
