import Foundation

/// What a lookup of a rendered result found.
package enum RedisResultLookup: Sendable, Equatable {
    case hit(RedisCacheEntry)
    /// A server rendered it and found it over `maxResultBytes`: render locally, without the lock.
    case localOnly
    case miss
}

/// Rendered results (`imagepipe serve`'s answers), shared as sources are: under `result:` keys,
/// up to `maxResultBytes`, with the same single-flight (`claimFetch`) for renders. A result over
/// the limit leaves a small marker instead, so the other servers render it at once, each for
/// itself, instead of waiting in turn for a lock whose holder stores nothing.
extension RedisImageCache {
    /// The cache key of the result digested as `digest`.
    package static func resultKey(_ digest: String) -> String { "result:" + digest }

    /// The format identifier of the marker of a result over `maxResultBytes`.
    static let localOnlyMarker = "imagepipe.local-only"

    package func result(forKey key: String) async -> RedisResultLookup {
        guard let entry = await entry(forKey: key, maxBytes: max(1, configuration.maxResultBytes)) else {
            counters.record(.resultMiss)
            return .miss
        }
        if entry.formatIdentifier == Self.localOnlyMarker {
            counters.record(.resultMiss)
            return .localOnly
        }
        counters.record(.resultHit)
        return .hit(entry)
    }

    /// Stores `entry` with the configured time to live, or the marker when it is over
    /// `maxResultBytes`; a store Redis refuses (down, `-OOM`) is counted and dropped.
    package func storeResult(_ entry: RedisCacheEntry, forKey key: String) async {
        var value = entry.data.count <= configuration.maxResultBytes ? entry.encoded() : nil
        if value == nil {
            counters.record(.resultTooLarge)
            value = RedisCacheEntry(data: Data([0]), formatIdentifier: Self.localOnlyMarker).encoded()
        }
        guard let value else { return }
        var arguments = [Data("SET".utf8), Data(valueKey(key).utf8), value]
        if let ttl = configuration.timeToLive {
            arguments += [Data("PX".utf8), Data(String(max(1, Self.milliseconds(ttl))).utf8)]
        }
        let stored = await pool.run(arguments)?.isOK == true
        if entry.data.count <= configuration.maxResultBytes { counters.record(stored ? .resultStored : .resultStoreFailed) }
    }
}
