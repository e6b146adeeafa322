import ArgumentParser
import Foundation

/// A byte count on the command line: a whole number of bytes, or a number with a unit as people
/// write them — `512MiB`, `2GB`, `1.5GiB`, `64k` (decimal units are powers of 1000, binary ones of
/// 1024, case does not matter, a space may come between).
package struct ByteCount: ExpressibleByArgument, Hashable, CustomStringConvertible {
    package let bytes: Int

    package init(_ bytes: Int) {
        self.bytes = bytes
    }

    private static let units: [String: Double] = [
        "": 1, "b": 1,
        "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
        "ki": 1024, "kib": 1024, "mi": 1_048_576, "mib": 1_048_576, "gi": 1_073_741_824, "gib": 1_073_741_824,
        "ti": 1_099_511_627_776, "tib": 1_099_511_627_776,
    ]

    package init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let number = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        if unit.isEmpty, let whole = Int(number) {
            bytes = whole
            return
        }
        guard let value = Double(number), let scale = Self.units[unit] else { return nil }
        let total = (value * scale).rounded(.down)
        guard total.isFinite, total < 9.2e18 else { return nil }
        bytes = Int(total)
    }

    /// The exact number of bytes, as help shows a default.
    package var description: String { String(bytes) }
    package var defaultValueDescription: String { description }
}
