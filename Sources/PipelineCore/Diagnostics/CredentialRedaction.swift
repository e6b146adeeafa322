/// Text for logs with the user name and password of every URL in it replaced by `***`
/// (`https://***@host/…`): a source URL may carry credentials, and a log line is read by more
/// people than the URL was meant for. Percent-encoded URLs (`http%3A%2F%2Fuser%3Apw%40host`, as in
/// an imgproxy plain source) are redacted too.
package enum CredentialRedaction {
    package static func redacting(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")) || text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes = Array(text.utf8)
        var changed = false
        var index = 0
        while let authority = nextAuthority(in: bytes, from: index) {
            let end = authorityEnd(in: bytes, from: authority)
            if let at = lastAt(in: bytes, from: authority, to: end), at.lowerBound > authority {
                bytes.replaceSubrange(authority..<at.lowerBound, with: Array("***".utf8))
                changed = true
                index = authority + 3
            } else {
                index = end
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    private static let plainSeparator = Array("://".utf8)
    private static let encodedSeparator = Array("%3a%2f%2f".utf8)

    /// Where an authority starts: just after the next `://` or `%3A%2F%2F` from `start`.
    private static func nextAuthority(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if matches(plainSeparator, in: bytes, at: index) { return index + plainSeparator.count }
            if matches(encodedSeparator, in: bytes, at: index) { return index + encodedSeparator.count }
            index += 1
        }
        return nil
    }

    /// The end of the authority starting at `start`: the next `/`, `?`, `#`, white space, or an
    /// encoded `/` (`%2F`).
    private static func authorityEnd(in bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                return index
            case UInt8(ascii: "%") where matches(Array("%2f".utf8), in: bytes, at: index):
                return index
            default:
                index += 1
            }
        }
        return index
    }

    /// The last `@` or `%40` in `start..<end`.
    private static func lastAt(in bytes: [UInt8], from start: Int, to end: Int) -> Range<Int>? {
        var index = end - 1
        while index >= start {
            if bytes[index] == UInt8(ascii: "@") { return index..<(index + 1) }
            if index + 3 <= end, matches(Array("%40".utf8), in: bytes, at: index) { return index..<(index + 3) }
            index -= 1
        }
        return nil
    }

    /// Whether `pattern` (lowercase ASCII) is at `index`, ignoring ASCII case.
    private static func matches(_ pattern: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        guard index + pattern.count <= bytes.count else { return false }
        for offset in pattern.indices {
            var byte = bytes[index + offset]
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte += 32 }
            if byte != pattern[offset] { return false }
        }
        return true
    }
}
