import Foundation
import PipelineCore
import ToolSupport

/// How the tool shows what a decoder recovered from: one line per warning on standard error,
/// `imagepipe: SOURCE: warning: MESSAGE` (escaped by `Console.err`), and the messages as the
/// `warnings` JSON array.
enum DecodeWarnings {
    static func report(_ warnings: [ImageDecodeWarning], source: String) {
        for warning in warnings {
            Console.err("imagepipe: \(source): warning: \(warning.message)")
        }
    }

    /// The `warnings` field: present on every line, empty when the decode was clean, so readers
    /// need not tell a missing field from no warnings.
    static func json(_ warnings: [ImageDecodeWarning]) -> JSONLine.Value {
        .strings(warnings.map(\.message))
    }
}

struct FailedOnWarning: Error, CustomStringConvertible {
    let count: Int

    var description: String {
        "refused: the decoder reported \(count == 1 ? "a warning" : "\(count) warnings") and --fail-on-warning is set"
    }
}
