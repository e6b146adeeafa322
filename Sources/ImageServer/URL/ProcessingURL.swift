import Foundation
import PipelineCore

/// An image URL in imgproxy's grammar, taken apart after its signature was checked:
/// `/{options}/plain/{percent-encoded source}@{ext}` or `/{options}/{base64url source}.{ext}`,
/// the options being `name:arg:arg` segments and the base64 source possibly split by slashes.
struct ProcessingURL: Hashable, Sendable {
    var options: ProcessingOptions
    /// The source URL, decoded (`http://…`, `https://…`, `local:///…`).
    var source: String

    /// A URL the grammar refuses: 404 as imgproxy answers (403 for a security option); `reason`
    /// names the part at fault.
    struct Malformed: Error, Hashable, CustomStringConvertible {
        var status = 404
        let reason: String
        var description: String { reason }
    }

    /// The server's presets and URL mode, and the clock `exp:` is checked against.
    struct Settings: Sendable {
        var presets: [String: [String]] = [:]
        var onlyPresets = false
        var now = Int64(Date().timeIntervalSince1970)
        /// The option names the URL may use, as written; empty allows all. Presets may use any.
        var allowedOptions: Set<String> = []
        /// Put in front of a source that does not start with it.
        var baseURL: String?
        /// Applied to the decoded source, in turn, before `baseURL`.
        var urlReplacements: [URLReplacement] = []
        /// What the URL's options start from: the server's per-option defaults and limits.
        var defaults = ProcessingOptions()
        /// Whether the security options may override `defaults.limits`; 403 otherwise.
        var allowsSecurityOptions = false
    }

    /// `source` as the server fetches it: rewritten by each replacement in turn, then behind
    /// `baseURL` unless it starts with it, imgproxy's order.
    static func rewritten(_ source: String, replacements: [URLReplacement], baseURL: String?) -> String {
        var source = source
        for replacement in replacements { source = replacement.apply(to: source) }
        if let baseURL, !source.hasPrefix(baseURL) { source = baseURL + source }
        return source
    }

    /// Parses `path`, `ImagePath.path`: what follows the signature, repaired, leading slash included.
    init(path: String, settings: Settings = Settings()) throws(Malformed) {
        var segments = Array(Self.fields(path, separator: "/").dropFirst())
        var options = settings.defaults
        var context = ProcessingOptionCatalog.Context(presets: settings.presets, now: settings.now, allowsSecurityOptions: settings.allowsSecurityOptions)
        if settings.presets["default"] != nil {
            try ProcessingOptionCatalog.applyPreset("default", to: &options, context: &context)
        }
        if settings.onlyPresets {
            // The first segment names presets, without `pr:`; everything after it is the source.
            guard segments.count > 1 else { throw Malformed(reason: "the source URL is missing") }
            for name in segments.removeFirst().split(separator: ":", omittingEmptySubsequences: false) {
                try ProcessingOptionCatalog.applyPreset(String(name), to: &options, context: &context)
            }
        } else {
            if let first = segments.first, ProcessingOptions.ResizingType(rawValue: first) != nil {
                throw Malformed(reason: "'\(first)/…' is imgproxy's old basic URL format, which it no longer reads either; write rs:\(first):…")
            }
            while let segment = segments.first, segment.contains(":") {
                if !settings.allowedOptions.isEmpty, case let name = String(segment.prefix { $0 != ":" }), !settings.allowedOptions.contains(name) {
                    throw Malformed(reason: "the option '\(Self.printable(name))' is not allowed on this server")
                }
                try ProcessingOptionCatalog.apply(segment, to: &options, context: &context)
                segments.removeFirst()
            }
        }
        var (source, ext) = try Self.source(segments)
        source = Self.rewritten(source, replacements: settings.urlReplacements, baseURL: settings.baseURL)
        if let ext, !options.raw {
            options.format = try OptionArguments(name: "extension", values: []).formatName(ext)
        }
        self.options = options
        self.source = source
    }

    /// The source and its extension from the segments left after the options.
    private static func source(_ segments: [String]) throws(Malformed) -> (String, String?) {
        guard let first = segments.first, !(segments.count == 1 && first.isEmpty) else {
            throw Malformed(reason: "the source URL is missing")
        }
        let parts: [Substring]
        let decoded: String?
        if first == "plain" && segments.count > 1 {
            parts = segments.dropFirst().joined(separator: "/").split(separator: "@", omittingEmptySubsequences: false)
            decoded = parts[0].removingPercentEncoding
        } else {
            parts = segments.joined().split(separator: ".", omittingEmptySubsequences: false)
            decoded = Data(base64URLEncoded: String(parts[0])).flatMap { String(data: $0, encoding: .utf8) }
        }
        guard !parts[0].isEmpty else { throw Malformed(reason: "the source URL is missing") }
        guard parts.count <= 2 else {
            throw Malformed(reason: first == "plain" ? "more than one @ in the source: write a literal @ as %40" : "more than one . in the source: only the extension follows one")
        }
        guard let decoded, !decoded.isEmpty else {
            throw Malformed(reason: first == "plain" ? "the plain source URL is not valid percent-encoding" : "the source URL is not valid URL-safe base64")
        }
        return (decoded, parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : nil)
    }

    /// `text` split at every ASCII `separator`, empty fields kept: over its UTF-8 bytes, as
    /// imgproxy splits them, and without walking grapheme clusters, which was most of what a
    /// URL's every extra option cost on a memory hit.
    static func fields(_ text: String, separator: Unicode.Scalar) -> [String] {
        text.utf8.split(separator: UInt8(ascii: separator), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// `text` cut to `limit` characters, anything but printable ASCII replaced by `?`, for quoting
    /// what a client sent in a reason or a log line.
    static func printable(_ text: some StringProtocol, limit: Int = 64) -> String {
        let cut = text.prefix(limit).map { $0.isASCII && ($0.asciiValue ?? 0) >= 0x20 && $0 != "\u{7F}" ? String($0) : "?" }.joined()
        return text.count > limit ? cut + "…" : cut
    }
}

/// A request's path split as imgproxy splits it before checking anything: the query cut off (it is
/// never signed or read), the signature segment, and the rest with imgproxy's two repairs made,
/// which is what the signature covers and the options are read from.
struct ImagePath: Hashable, Sendable {
    var signature: String
    /// Leading slash included.
    var path: String

    // Scanned as UTF-8: the separators are ASCII, and a Character walk (grapheme breaking) was
    // most of a memory hit's parse.
    init(target: String) throws(ProcessingURL.Malformed) {
        let bytes = target.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        guard bytes.first == UInt8(ascii: "/") else { throw ProcessingURL.Malformed(reason: "the path must start with /") }
        let start = bytes.index(after: bytes.startIndex)
        guard let slash = bytes[start..<end].firstIndex(of: UInt8(ascii: "/")), slash != start, bytes.index(after: slash) != end else {
            throw ProcessingURL.Malformed(reason: "expected /{signature}/{options}/{source}")
        }
        signature = String(target[start..<slash])
        path = "/" + Self.repaired(String(target[bytes.index(after: slash)..<end]))
    }

    /// imgproxy's `RedenormalizePath`: `%3A` in the options becomes `:` (proxies encode it), and a
    /// plain source's `scheme:/host` (a proxy folded `//`) becomes `scheme://host`.
    static func repaired(_ path: String) -> String {
        let options: String
        let plain: String?
        if path.hasPrefix("plain/") {
            (options, plain) = ("", String(path.dropFirst("plain/".count)))
        } else if let range = utf8Range(of: "/plain/", in: path) {
            (options, plain) = (String(path[..<range.lowerBound]), String(path[range.upperBound...]))
        } else {
            (options, plain) = (path, nil)
        }
        let fixedOptions = utf8Range(of: "%3A", in: options) == nil ? options : options.replacingOccurrences(of: "%3A", with: ":")
        guard let plain else { return fixedOptions }
        let fixedPlain = repairedScheme(plain)
        return fixedOptions.isEmpty ? "plain/" + fixedPlain : fixedOptions + "/plain/" + fixedPlain
    }

    /// The first occurrence of the ASCII `needle` in `text`, compared byte for byte.
    static func utf8Range(of needle: String, in text: String) -> Range<String.Index>? {
        let bytes = text.utf8, pattern = Array(needle.utf8)
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = bytes.startIndex
        while let found = bytes[index...].firstIndex(of: first) {
            guard let last = bytes.index(found, offsetBy: pattern.count, limitedBy: bytes.endIndex) else { return nil }
            if bytes[found..<last].elementsEqual(pattern) { return found..<last }
            index = bytes.index(after: found)
        }
        return nil
    }

    /// The regex `^(\S+):/([^/])` applied once, greedily: the last `:/` followed by anything but
    /// `/` within the first run of non-space characters, bit for bit as imgproxy does.
    static func repairedScheme(_ plain: String) -> String {
        let bytes = Array(plain.utf8)
        let run = bytes.firstIndex { $0 == 0x20 || (0x09...0x0D).contains($0) } ?? bytes.count
        var index = min(run - 1, bytes.count - 3)
        while index >= 1 {
            if bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] != UInt8(ascii: "/") {
                let scheme = String(decoding: bytes[..<index], as: UTF8.self)
                let tail = String(decoding: bytes[(index + 2)...], as: UTF8.self)
                return scheme == "local" ? "local:///" + tail : scheme + "://" + tail
            }
            index -= 1
        }
        return plain
    }
}
