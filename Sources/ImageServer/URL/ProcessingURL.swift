import Foundation
import PipelineCore

/// An image URL in imgproxy's grammar, taken apart:
/// `/{signature}/{options}/plain/{percent-encoded source}@{ext}` or
/// `/{signature}/{options}/{base64url source}.{ext}`, the options being `name:arg:arg` segments
/// and the base64 source possibly split by slashes. The extension is optional in both forms.
struct ProcessingURL: Hashable, Sendable {
    /// The first segment: an HMAC, or `insecure` / `_` for unsigned URLs.
    var signature: String
    /// Everything after the signature, leading slash included: what the signature covers.
    var signedPath: String
    var options: ProcessingOptions
    /// The source URL, decoded (`http://…`, `https://…`, `local:///…`).
    var source: String

    /// A URL the grammar refuses; `reason` names the part at fault. Answered with 400.
    struct Malformed: Error, Hashable, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Parses `target`, the request's path and query exactly as sent (still percent-encoded).
    /// `formats` maps an extension or `f:` name to an output format; nil means unknown there.
    init(target: String, formats: (String) -> ImageFormat?) throws(Malformed) {
        var segments = target.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.first == "" else { throw Malformed(reason: "the path must start with /") }
        segments.removeFirst()
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw Malformed(reason: "expected /{signature}/{options}/{source}")
        }
        signature = segments.removeFirst()
        signedPath = "/" + segments.joined(separator: "/")

        var options = ProcessingOptions()
        var index = 0
        while index < segments.count, segments[index] != "plain", segments[index].contains(":") {
            try ProcessingOptionParser.apply(segments[index], to: &options, formats: formats)
            index += 1
        }
        let rest = segments[index...]
        guard let first = rest.first, !first.isEmpty else { throw Malformed(reason: "the source URL is missing") }

        let ext: String?
        if first == "plain" {
            let plain = rest.dropFirst().joined(separator: "/")
            // The last `@` starts the extension unless what follows it is still part of a URL.
            var encoded = plain
            var found: String?
            if let at = plain.lastIndex(of: "@") {
                let tail = plain[plain.index(after: at)...]
                if !tail.contains("/") && !tail.contains(":") {
                    found = String(tail)
                    encoded = String(plain[..<at])
                }
            }
            ext = found
            guard let decoded = encoded.removingPercentEncoding, !decoded.isEmpty else {
                throw Malformed(reason: "the plain source URL is not valid percent-encoding")
            }
            source = decoded
        } else {
            var joined = rest.joined()
            if let dot = joined.lastIndex(of: ".") {
                ext = String(joined[joined.index(after: dot)...])
                joined = String(joined[..<dot])
            } else {
                ext = nil
            }
            guard let decoded = Self.base64URLDecoded(joined) else {
                throw Malformed(reason: "the source URL is not valid URL-safe base64")
            }
            source = decoded
        }
        if let ext, !ext.isEmpty {
            guard let format = formats(ext.lowercased()) else {
                throw Malformed(reason: "unknown output format '\(Self.printable(ext))'")
            }
            options.format = format
        }
        self.options = options
    }

    /// URL-safe base64 (padding optional) to a UTF-8 string; nil when either is invalid.
    static func base64URLDecoded(_ text: String) -> String? {
        guard !text.isEmpty, let data = Data(base64URLEncoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// `text` cut to `limit` characters, anything but printable ASCII replaced by `?`, for quoting
    /// what a client sent in a reason or a log line.
    static func printable(_ text: some StringProtocol, limit: Int = 64) -> String {
        let cut = text.prefix(limit).map { $0.isASCII && ($0.asciiValue ?? 0) >= 0x20 && $0 != "\u{7F}" ? String($0) : "?" }.joined()
        return text.count > limit ? cut + "…" : cut
    }
}
