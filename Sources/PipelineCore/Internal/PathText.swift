/// `NSString`'s `pathExtension`, `lastPathComponent` and `deletingPathExtension` for keys that are
/// not URLs, written out because swift-corelibs-foundation's trap on some strings with repeated
/// slashes (`"a//é"`, `"a//// //"`), and a cache key is any string a caller or key filter makes.
/// The results equal `NSString`'s wherever those return (checked on a million random strings), but
/// for strings of slashes only: `/` here, as on Darwin, where Linux's `NSString` says `""` for `//`.
package enum PathText {
    /// After the last `.` of the last component (trailing slashes ignored); empty when none.
    package static func pathExtension(_ path: String) -> String {
        guard let dot = extensionDot(path) else { return "" }
        return String(path[path.index(after: dot)..<withoutTrailingSlashes(path).endIndex])
    }

    package static func lastPathComponent(_ path: String) -> String {
        if !path.isEmpty, withoutTrailingSlashes(path).isEmpty { return "/" }
        return String(lastComponent(path))
    }

    /// Without the extension and its dot, trailing slashes dropped and runs of slashes folded
    /// into one, as `NSString` returns it.
    package static func deletingPathExtension(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if !path.isEmpty, trimmed.isEmpty { return "/" }
        var result = ""
        for character in path[..<(extensionDot(path) ?? trimmed.endIndex)] where !(character == "/" && result.last == "/") {
            result.append(character)
        }
        return result
    }

    private static func withoutTrailingSlashes(_ path: String) -> Substring {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        return path[..<end]
    }

    private static func lastComponent(_ path: String) -> Substring {
        let trimmed = withoutTrailingSlashes(path)
        return trimmed[(trimmed.lastIndex(of: "/").map { trimmed.index(after: $0) } ?? trimmed.startIndex)...]
    }

    /// The dot that starts the extension: the last one in the last component, unless it begins the
    /// component (`.hidden`) or the component is `..`.
    private static func extensionDot(_ path: String) -> String.Index? {
        let component = lastComponent(path)
        guard component != "..", let dot = component.lastIndex(of: "."), dot != component.startIndex else { return nil }
        return dot
    }
}
