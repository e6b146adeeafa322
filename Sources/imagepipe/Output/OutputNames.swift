/// The file name stems `fetch` gives its sources' outputs: the source's file name stem, made safe,
/// made unique. A stem a source has by its own name keeps it (`z/a-2.png` stays `a-2`); a second
/// source with a taken stem gets the first `-N` no other source has (`x/a.png y/a.png z/a-2.png`
/// give `a`, `a-3`, `a-2`), so names depend on the order of the sources, never on which finishes first.
/// A source from a subfolder of a folder given with `-r` has that subfolder's path in front
/// (`2024/june/a`), its components made safe the same way; names are unique within a subfolder.
enum OutputNames {
    /// Longest stem in UTF-8 bytes: with `-N` and an extension a name stays under the 255 bytes
    /// a file name may have.
    static let maxStemBytes = 200

    /// `folders[i]` is where source `i` goes under the output folder ("" or none: the top).
    static func assign(_ sources: [String], folders: [String] = []) -> [String] {
        let natural = sources.indices.map { index in
            let folder = index < folders.count ? folders[index] : ""
            return folder.isEmpty ? stem(sources[index]) : folder + "/" + stem(sources[index])
        }
        var used = Set<String>()
        var stems = natural.map { used.insert($0).inserted ? $0 : nil }
        var nextSuffix: [String: Int] = [:]
        for index in stems.indices where stems[index] == nil {
            let base = natural[index]
            var suffix = nextSuffix[base, default: 2]
            while used.contains("\(base)-\(suffix)") { suffix += 1 }
            stems[index] = "\(base)-\(suffix)"
            used.insert("\(base)-\(suffix)")
            nextSuffix[base] = suffix + 1
        }
        return stems.map { $0! }
    }

    private static func stem(_ source: String) -> String {
        safeComponent(SourceParser.url(for: source)?.deletingPathExtension().lastPathComponent ?? "")
    }

    /// `name` as one safe path component: letters, digits, `-`, `_` and `.` kept, anything else
    /// `_`, at most `maxStemBytes`; never empty, `.` or `..`.
    static func safeComponent(_ name: String) -> String {
        var stem = ""
        for character in name {
            let safe: Character = character.isLetter || character.isNumber || "-_.".contains(character) ? character : "_"
            guard stem.utf8.count + safe.utf8.count <= maxStemBytes else { break }
            stem.append(safe)
        }
        if stem.isEmpty || stem == "." || stem == ".." { stem = "image" }
        return stem
    }
}
