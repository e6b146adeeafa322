import ArgumentParser
import Foundation

/// An imgproxy variable (`IMGPROXY_…`) read as a setting of `serve` that means the same thing,
/// its value converted where imgproxy's unit or form differs from the flag's, so an imgproxy
/// deployment's environment works as it is. `IMAGEPIPE_…` variables and flags win over it.
struct ImgproxyVariable: Sendable {
    let name: String
    /// How imgproxy's form differs from the flag's, for the docs; nil when it is the same.
    let note: String?
    /// The flag's values for the variable's text (and the rest of the environment); empty when
    /// the text sets nothing. A text imgproxy would refuse is a usage error naming the variable.
    let convert: @Sendable (_ text: String, _ environment: [String: String]) throws -> [String]

    /// Taken as the flag takes it (a list: comma-separated, as the flag's variable).
    static func same(_ name: String) -> Self {
        Self(name: name, note: nil) { text, _ in [text] }
    }

    /// `IMGPROXY_BIND`'s and `IMGPROXY_PROMETHEUS_BIND`'s `HOST:PORT`: the host (none, as in
    /// `:8080`, is every address, as imgproxy listens; `[::1]` is `::1`).
    static func bindHost(_ name: String) -> Self {
        Self(name: name, note: "`HOST:PORT`; `:8080` listens on every address (`0.0.0.0`)") { text, _ in
            let (host, _) = try bind(text, name)
            return [host.isEmpty ? "0.0.0.0" : host]
        }
    }

    /// The port of a `HOST:PORT` variable.
    static func bindPort(_ name: String) -> Self {
        Self(name: name, note: "`HOST:PORT`") { text, _ in [try bind(text, name).port] }
    }

    static func bind(_ text: String, _ name: String) throws -> (host: String, port: String) {
        guard let colon = text.lastIndex(of: ":"), !text.hasPrefix("/") else {
            throw ValidationError("\(name) '\(text)' must be HOST:PORT or :PORT (a Unix socket is not supported)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, String(text[text.index(after: colon)...]))
    }

    /// imgproxy's megapixels (a decimal number) as pixels.
    static func megapixels(_ name: String) -> Self {
        Self(name: name, note: "megapixels, converted to pixels") { text, _ in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0, value <= 1_000_000 else {
                throw ValidationError("\(name) '\(text)' must be a number of megapixels over 0")
            }
            return [String(Int((value * 1_000_000).rounded()))]
        }
    }

    /// A whole number where imgproxy's 0 means `meaning` (no limit, say), which the flag writes `zero`.
    static func zero(_ name: String, means meaning: String, as zero: Int) -> Self {
        Self(name: name, note: "0 (\(meaning)) is \(zero)") { text, _ in
            [Int(text.trimmingCharacters(in: .whitespaces)) == 0 ? String(zero) : text]
        }
    }

    /// A setting imgproxy's 0 leaves unset (the flag's default applies).
    static func zeroUnset(_ name: String, note: String) -> Self {
        Self(name: name, note: note) { text, _ in
            Int(text.trimmingCharacters(in: .whitespaces)) == 0 ? [] : [text]
        }
    }

    /// `IMGPROXY_PRESETS`: `NAME=OPTIONS` items divided by `IMGPROXY_PRESETS_SEPARATOR` (a comma
    /// unless set).
    static let presets = Self(name: "IMGPROXY_PRESETS", note: "divided by `IMGPROXY_PRESETS_SEPARATOR` when set") { text, environment in
        let separator = environment["IMGPROXY_PRESETS_SEPARATOR"].flatMap { $0.isEmpty ? nil : $0 } ?? ","
        return text.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `IMGPROXY_URL_REPLACEMENTS`: `PATTERN=REPLACEMENT` items divided by `;`.
    static let urlReplacements = Self(name: "IMGPROXY_URL_REPLACEMENTS", note: "divided by `;`") { text, _ in
        text.split(separator: ";").map(String.init).filter { !$0.isEmpty }
    }

    /// `IMGPROXY_LOG_FORMAT`: `json` and `gcp` write JSON lines, `pretty` and `structured` text.
    static let logFormat = Self(name: "IMGPROXY_LOG_FORMAT", note: "`json` and `gcp` are `json`, `pretty` and `structured` `text`") { text, _ in
        switch text.lowercased() {
        case "json", "gcp": return ["json"]
        case "pretty", "structured": return ["text"]
        default: throw ValidationError("IMGPROXY_LOG_FORMAT '\(text)' must be pretty, structured, json or gcp")
        }
    }

    /// `IMGPROXY_LOG_LEVEL` as `--quiet` (`error`, `warn`) or `--verbose` (`debug`).
    static func logLevel(turnsOn levels: Set<String>) -> Self {
        Self(name: "IMGPROXY_LOG_LEVEL", note: "`\(levels.sorted().joined(separator: "`, `"))` turn it on") { text, _ in
            let level = text.lowercased()
            guard ["error", "warn", "info", "debug"].contains(level) else {
                throw ValidationError("IMGPROXY_LOG_LEVEL '\(text)' must be error, warn, info or debug")
            }
            return levels.contains(level) ? ["1"] : []
        }
    }

    /// Variables read only as part of another (`IMGPROXY_PRESETS_SEPARATOR`).
    static let readWithOthers: Set<String> = ["IMGPROXY_PRESETS_SEPARATOR"]
}
