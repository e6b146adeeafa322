/// imgproxy's `IMGPROXY_PATH_PREFIX`: every route of the main port lives under it (`/img/health`,
/// `/img/SIG/…`, `/img/info/…`, `/img/purge`), and it is taken off before the signature is checked,
/// so a URL signed for a server without a prefix is valid behind one with it. Nothing outside it
/// is answered but 404.
package struct PathPrefix: Hashable, Sendable {
    /// Empty, or `/` and the prefix's segments without a trailing slash (`/img`, `/cdn/img`).
    let value: String

    init(_ value: String) {
        var trimmed = Substring(value)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        self.value = String(trimmed)
    }

    var isEmpty: Bool { value.isEmpty }

    /// `path` without the prefix, leading slash included (`/img/SIG/x` → `/SIG/x`, `/img` → `/`),
    /// or nil when the path is not under the prefix (`/imgx/…`, `/other`).
    func strip(_ path: String) -> String? {
        guard !value.isEmpty else { return path }
        guard path.hasPrefix(value) else { return nil }
        let rest = path.dropFirst(value.count)
        if rest.isEmpty { return "/" }
        return rest.hasPrefix("/") ? String(rest) : nil
    }

    /// `route` (`/health`) under the prefix.
    func route(_ route: String) -> String { value + route }

    /// Why a setting's text cannot be a prefix, or nil: it starts with `/` and is printable ASCII
    /// without spaces, `?`, `#` or `%` (it is compared with the path as the client sends it), nor
    /// the router's `*`, `:`, `{` and `}`.
    package static func problem(with text: String) -> String? {
        guard text.hasPrefix("/") else { return "must start with /" }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && !"?#%*:{}".utf8.contains($0) }) else {
            return "must be printable ASCII without spaces, ?, #, %, *, :, { or }"
        }
        guard !text.contains("//") else { return "must not contain an empty segment (//)" }
        return nil
    }
}
