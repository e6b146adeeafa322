/// One of imgproxy's source URL rewrites (`IMGPROXY_URL_REPLACEMENTS`): a source starting with
/// `pattern`, in which each `*` stands for a run of characters other than `/`, has that start
/// replaced by `replacement`, in which `${N}` (or `$N`) is what the N-th `*` matched and `$$` a `$`.
/// Replacements apply in order, each to the previous one's result, after the source is
/// decoded and before `baseURL` and the allow-list (`s3://images/*` = `https://${1}.s3.example.com/`).
public struct URLReplacement: Hashable, Sendable, CustomStringConvertible {
    public let pattern: String
    public let replacement: String

    public init(pattern: String, replacement: String) {
        self.pattern = pattern
        self.replacement = replacement
    }

    /// `PATTERN=REPLACEMENT`, split at the first `=`; nil without one or with an empty pattern.
    public init?(_ definition: String) {
        guard let equals = definition.firstIndex(of: "="), equals != definition.startIndex else { return nil }
        self.init(pattern: String(definition[..<equals]), replacement: String(definition[definition.index(after: equals)...]))
    }

    public var description: String { "\(pattern)=\(replacement)" }

    /// `url` rewritten, or as it is when it does not start with the pattern.
    func apply(to url: String) -> String {
        let text = Array(url.utf8)
        let literals = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
        guard let (ranges, matchEnd) = Self.match(literals, in: text, at: 0) else { return url }
        let groups = [String(decoding: text[..<matchEnd], as: UTF8.self)] + ranges.map { String(decoding: text[$0], as: UTF8.self) }
        return Self.expand(replacement, groups: groups) + String(decoding: text[matchEnd...], as: UTF8.self)
    }

    /// What each `*` matched and where the match ends; each `*` takes the longest run without `/`
    /// that lets the rest match (the regex `^lit([^/]*)lit…` imgproxy builds, greedy).
    private static func match(_ literals: [[UInt8]], in text: [UInt8], at start: Int) -> (ranges: [Range<Int>], end: Int)? {
        let first = literals[0]
        guard text.count - start >= first.count, text[start..<(start + first.count)].elementsEqual(first) else { return nil }
        let afterLiteral = start + first.count
        guard literals.count > 1 else { return ([], afterLiteral) }
        var runEnd = afterLiteral
        while runEnd < text.count && text[runEnd] != UInt8(ascii: "/") { runEnd += 1 }
        for end in stride(from: runEnd, through: afterLiteral, by: -1) {
            if let rest = match(Array(literals.dropFirst()), in: text, at: end) {
                return ([afterLiteral..<end] + rest.ranges, rest.end)
            }
        }
        return nil
    }

    /// Go's `Regexp.Expand`, which imgproxy's replacement goes through: `$N`, `${N}`, `$$`; a
    /// name that is not a group's number is empty, a `$` followed by no name is kept.
    static func expand(_ template: String, groups: [String]) -> String {
        var output = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                output += "$"
                rest = rest.dropFirst()
                continue
            }
            let isNameCharacter: (Character) -> Bool = { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            let name: Substring
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}"), case let inner = rest[rest.index(after: rest.startIndex)..<close], !inner.isEmpty,
                    inner.allSatisfy(isNameCharacter)
                else {
                    output += "$"
                    continue
                }
                name = inner
                rest = rest[rest.index(after: close)...]
            } else {
                name = rest.prefix(while: isNameCharacter)
                guard !name.isEmpty else {
                    output += "$"
                    continue
                }
                rest = rest.dropFirst(name.count)
            }
            if name.allSatisfy(\.isASCII), name.count < 9, let number = Int(name), number < groups.count { output += groups[number] }
        }
        return output + rest
    }
}
