import Synchronization

/// What a `RedisImageCache` has done since it was made: a snapshot for logs and health pages.
public struct RedisCacheStats: Sendable, Equatable {
    public var hits = 0
    public var misses = 0
    public var stores = 0
    /// Stores left to the local caches because the entry was larger than `maxEntryBytes`.
    public var storesTooLarge = 0
    /// Connect failures, timeouts, closed connections, error replies (`-OOM`, `-ERR`).
    public var faults = 0
    /// Commands not sent because the breaker was open or the queue was full.
    public var skipped = 0
    /// Values under our keys that were not ours or were damaged; each answered as a miss.
    public var corruptValues = 0
    /// Times the circuit breaker opened.
    public var breakerOpenings = 0

    public init() {}
}

/// The counters behind `RedisCacheStats`, bumped from any thread.
final class RedisCacheCounters: Sendable {
    private let stats = Mutex(RedisCacheStats())
    func bump(_ counter: WritableKeyPath<RedisCacheStats, Int>) { stats.withLock { $0[keyPath: counter] += 1 } }
    var snapshot: RedisCacheStats { stats.withLock { $0 } }
}
