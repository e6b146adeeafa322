import Foundation

/// Purges by generation: each source URL, and each folder of one (every prefix ending in `/`), has
/// a counter in Redis that a purge increments. A lookup reads a source's counter and its folders'
/// in one `MGET` and folds them into every key made from the source, so a purge makes the old
/// entries unreachable on every server at once, without finding or deleting them: they expire by
/// their time to live. The counters themselves have none: one that vanished would bring the entries
/// it hid back. Under `maxmemory`, a `volatile-*` policy evicts entries and never counters.
extension RedisImageCache {
    /// Folders of a source deeper than this cannot be purged by prefix (each is one more key in
    /// every lookup's `MGET`); the URL itself always can.
    package static let maxPurgeDepth = 16

    func sourceGenerationKey(_ source: String) -> String { configuration.keyPrefix + "gen:url:" + source }
    func prefixGenerationKey(_ prefix: String) -> String { configuration.keyPrefix + "gen:dir:" + prefix }

    /// The purge generation of `source` as a token to fold into keys: empty while neither the
    /// source nor any of its folders was ever purged (keys stay as they were), else the counters
    /// joined. Nil when Redis cannot be asked (then nothing is known to be current).
    package func purgeGeneration(of source: URL) async -> String? {
        let text = source.absoluteString
        let keys = [sourceGenerationKey(text)] + Self.purgePrefixes(of: text).map(prefixGenerationKey)
        guard case .array(let values)? = await pool.run(["MGET"] + keys), values.count == keys.count else { return nil }
        let counters = values.map { value -> String in
            guard case .string(let bytes) = value, let text = String(data: bytes, encoding: .utf8), UInt64(text) != nil else { return "0" }
            return text
        }
        return counters.allSatisfy { $0 == "0" } ? "" : "g" + counters.joined(separator: ".")
    }

    /// Makes every entry keyed with `source`'s generation unreachable; false when Redis did not
    /// confirm it (the purge is not done).
    package func purge(source: URL) async -> Bool {
        if case .integer? = await pool.run(["INCR", sourceGenerationKey(source.absoluteString)]) { return true }
        return false
    }

    /// As `purge(source:)` for every source under `prefix`, which ends in `/` and is at most
    /// `maxPurgeDepth` folders deep (`isPurgeablePrefix`).
    package func purge(prefix: String) async -> Bool {
        guard Self.isPurgeablePrefix(prefix) else { return false }
        if case .integer? = await pool.run(["INCR", prefixGenerationKey(prefix)]) { return true }
        return false
    }

    /// Whether `purge(prefix:)` can reach what `prefix` names: a `scheme://authority/` URL
    /// prefix ending in `/`, without query or fragment, at most `maxPurgeDepth` folders deep.
    package static func isPurgeablePrefix(_ prefix: String) -> Bool {
        guard prefix.hasSuffix("/"), !prefix.contains("?"), !prefix.contains("#") else { return false }
        return purgePrefixes(of: prefix + "x").last == prefix
    }

    /// The folders of `source` a prefix purge can name, shortest first: `scheme://authority/`
    /// and each path prefix ending in `/`, before any query, at most `maxPurgeDepth`.
    package static func purgePrefixes(of source: String) -> [String] {
        guard let schemeEnd = source.range(of: "://") else { return [] }
        let path = source[schemeEnd.upperBound...].prefix { $0 != "?" && $0 != "#" }
        var prefixes: [String] = []
        for index in path.indices where path[index] == "/" {
            guard prefixes.count < maxPurgeDepth else { break }
            prefixes.append(String(source[..<path.index(after: index)]))
        }
        return prefixes
    }
}
