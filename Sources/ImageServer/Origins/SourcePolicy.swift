import Foundation

/// Which source URLs the server fetches: http(s) URLs (matching an allowed prefix when any are
/// configured) and `local:///path` under the local root when one is configured. The SSRF guard on
/// addresses is the HTTP loader's; this is the check on the URL itself.
struct SourcePolicy: Sendable {
    let allowedPrefixes: [SourcePrefix]
    /// The local root, resolved; nil refuses every `local:` source.
    let localRoot: String?

    enum Refusal: Error, Equatable {
        /// Not a source URL at all (400).
        case malformed(String)
        /// A source the configuration does not allow (403).
        case notAllowed(String)
    }

    /// The URL to load for `source`, or why it may not be loaded.
    func resolve(_ source: String) throws(Refusal) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else {
            throw .malformed("the source is not a URL")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { throw .malformed("the source URL has no host") }
            guard Self.isAllowed(url, by: allowedPrefixes) else { throw .notAllowed("the source is not in the allowed sources") }
            return url
        case "local":
            guard let localRoot else { throw .notAllowed("local sources are not enabled") }
            guard url.host.map(\.isEmpty) ?? true else { throw .malformed("a local source is local:///path") }
            let path = url.path
            guard path.hasPrefix("/"), !Self.hasDotSegment(path) else { throw .malformed("a local source is local:///path") }
            return URL(fileURLWithPath: localRoot + path)
        default:
            throw .malformed("unsupported source scheme '\(ProcessingURL.printable(scheme))'")
        }
    }

    /// True when no prefixes are configured, or `url` is under one of them. Also checked on the
    /// URL a source finally redirected to.
    static func isAllowed(_ url: URL, by prefixes: [SourcePrefix]) -> Bool {
        prefixes.isEmpty || (!hasDotSegment(url.path(percentEncoded: false)) && prefixes.contains { $0.matches(url) })
    }

    /// `.` or `..` as a path segment, which a loader or origin would fold away after the checks:
    /// segments split at `/` and at `\` (which IIS takes for one, `..%5c` decoded), with a path
    /// parameter dropped (`..;x`, which Tomcat folds like `..`).
    static func hasDotSegment(_ path: String) -> Bool {
        path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains { segment in
            let name = segment.prefix { $0 != ";" }
            return name == "." || name == ".."
        }
    }
}

/// An `--allow-source` prefix, compared by parts: scheme, host and port exactly, then the path as
/// a string prefix. A plain string prefix would let `http://example.com@evil.com/` through
/// `http://example.com` (the host there is evil.com) and `http://example.com.evil.com/` too.
/// A `*` in the host or the path stands for any run of characters but `/`, as in imgproxy's
/// `IMGPROXY_ALLOWED_SOURCES` (`https://*.example.com/`, `https://cdn.example.com/*/public/`); it
/// is matched against the host and path as parsed, so it never reaches into another part.
public struct SourcePrefix: Sendable, Hashable, CustomStringConvertible {
    let scheme: String
    let host: WildcardPattern
    let port: Int
    let pathPrefix: WildcardPattern
    public let description: String

    /// Stands for `*` while the URL is parsed: letters every URL parser keeps as they are.
    private static let placeholder = "qxwildcardqx"

    /// Nil unless `text` is an http(s) URL with a host and no user name or password.
    public init?(_ text: String) {
        let parsed = text.replacingOccurrences(of: "*", with: Self.placeholder)
        guard let url = URL(string: parsed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil,
            url.query == nil, url.fragment == nil, !SourcePolicy.hasDotSegment(url.path(percentEncoded: false))
        else { return nil }
        self.scheme = scheme
        self.host = WildcardPattern(host, wildcard: Self.placeholder)
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
        // Decoded, trailing slash kept: `https://h/images/` must not match `/imagesx`.
        self.pathPrefix = WildcardPattern(url.path(percentEncoded: false), wildcard: Self.placeholder)
        self.description = text
    }

    func matches(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == self.scheme, let host = url.host?.lowercased(),
            self.host.matches(host, prefixOnly: false), (url.port ?? (scheme == "https" ? 443 : 80)) == port
        else { return false }
        let decoded = url.path(percentEncoded: false)
        let path = decoded.isEmpty ? "/" : decoded
        return pathPrefix.matches(path, prefixOnly: true)
    }
}

/// Text with wildcards, each standing for any run of characters but `/`.
struct WildcardPattern: Sendable, Hashable {
    /// The literal parts around the wildcards, one more than there are wildcards.
    let pieces: [[UInt8]]

    init(_ text: String, wildcard: String) {
        pieces = text.components(separatedBy: wildcard).map { Array($0.utf8) }
    }

    /// True when `text` is matched whole, or (with `prefixOnly`) starts with a match.
    func matches(_ text: String, prefixOnly: Bool) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.starts(with: pieces[0]) else { return false }
        return match(piece: 1, in: bytes, from: pieces[0].count, prefixOnly: prefixOnly)
    }

    /// Every place the wildcard before `piece` could stop is tried: patterns are a few pieces, the
    /// text a URL's part.
    private func match(piece: Int, in bytes: [UInt8], from start: Int, prefixOnly: Bool) -> Bool {
        guard piece < pieces.count else { return prefixOnly || start == bytes.count }
        let literal = pieces[piece]
        var end = start
        while true {
            if end + literal.count <= bytes.count, bytes[end..<(end + literal.count)].elementsEqual(literal),
                match(piece: piece + 1, in: bytes, from: end + literal.count, prefixOnly: prefixOnly)
            {
                return true
            }
            guard end < bytes.count, bytes[end] != UInt8(ascii: "/") else { return false }
            end += 1
        }
    }
}
