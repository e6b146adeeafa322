import Foundation
import Synchronization

/// A thread-safe key → value cache limited by total cost and count, evicting the least recently
/// used entries first, every operation O(1).
///
/// Entries are spread by key hash over a few shards, each an exact LRU (`LRUShard`) behind its own
/// `Mutex` with an equal share of the limits. Two tasks touching different keys rarely wait for
/// each other, and a hit writes only its own shard: there is no state that every operation
/// writes, which would move one cache line between the cores on every hit. The price is that
/// eviction follows each shard's order, not one order over the whole cache; on the benchmark's
/// stream (`Benchmarks/cache-bench-RESULTS.md`) that keeps within a tenth of a percent of an exact
/// LRU's hit ratio. Caches too small to split (a count limit under 128) get one shard, so they are
/// exact LRUs.
///
/// An entry whose cost is above `entryCostLimit` (by default 10 % of the cost limit, as Nuke does) is
/// not kept: one huge image would otherwise flush everything else. The shard count is chosen so
/// that every shard can hold such an entry.
///
/// The operations are `@inlinable` so that they are specialised for the caller's `Key` and
/// `Value`: a generic cache called through witness tables from another module runs several times
/// slower.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One stripe: an LRU behind its lock, after 64 bytes of padding. A hit writes the lock and
    /// the LRU's first fields (one 64-byte line, or two adjacent ones), so 128 bytes per shard
    /// keep every shard's written lines apart from the others' and from the object's header.
    @usableFromInline
    struct Shard: ~Copyable, Sendable {
        let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        @usableFromInline let lru: Mutex<LRUShard<Key, Value>>

        init(costLimit: Int, countLimit: Int) { lru = Mutex(LRUShard(costLimit: costLimit, countLimit: countLimit)) }
    }

    /// A fixed number of shards, so that their locks live inside the cache object and a call
    /// reaches its shard without retaining anything; only the first `shardMask + 1` are used.
    @usableFromInline typealias Shards = InlineArray<16, Shard>

    @usableFromInline let shards: Shards
    @usableFromInline let shardMask: Int
    @usableFromInline let keyHash = CacheKeyHash()
    @usableFromInline let clock: CacheClock
    @usableFromInline let timeToLive: TimeInterval?

    /// The limit on the sum of entry costs (bytes, for images).
    public let costLimit: Int
    public let countLimit: Int
    /// Entries costing more than this are not kept.
    public let entryCostLimit: Int

    /// - Parameters:
    ///   - costLimit: total cost kept; defaults to a fifth of the memory this process may use (RAM
    ///     or the cgroup limit, whichever is lower). Never unlimited: a server's cache that grows
    ///     without bound is a slow leak.
    ///   - countLimit: entries kept; `Int.max` leaves only the cost limit.
    ///   - entryCostLimitRatio: entries costing more than this fraction of `costLimit` are not kept.
    ///   - timeToLive: entries older than this are misses; nil keeps them until evicted.
    public convenience init(
        costLimit: Int = MemoryCacheDefaults.costLimit,
        countLimit: Int = .max,
        entryCostLimitRatio: Double = 0.1,
        timeToLive: TimeInterval? = nil
    ) {
        self.init(costLimit: costLimit, countLimit: countLimit, entryCostLimitRatio: entryCostLimitRatio,
                  timeToLive: timeToLive, shardCount: nil, clock: .system)
    }

    /// - Parameters:
    ///   - shardCount: lock stripes, rounded down to a power of two and to what the limits allow;
    ///     nil picks from the CPU count.
    ///   - clock: the time source for `timeToLive`.
    init(
        costLimit: Int, countLimit: Int = .max, entryCostLimitRatio: Double = 0.1, timeToLive: TimeInterval? = nil,
        shardCount: Int?, clock: CacheClock = .system
    ) {
        self.costLimit = max(costLimit, 0)
        self.countLimit = max(countLimit, 0)
        let ratio = min(max(entryCostLimitRatio, 0), 1)
        let entryLimit = Double(self.costLimit) * ratio
        entryCostLimit = entryLimit >= Double(Int.max) ? .max : Int(entryLimit)
        self.timeToLive = timeToLive
        self.clock = clock
        let count = Self.shardCount(requested: shardCount, countLimit: self.countLimit, entryCostLimitRatio: ratio)
        let share = (cost: self.costLimit / count, count: self.countLimit / count)
        shardMask = count - 1
        shards = InlineArray { _ in Shard(costLimit: share.cost, countLimit: share.count) }
    }

    /// A power of two: a few per core, but each shard must hold an entry of `entryCostLimit` and
    /// a useful number of entries (64) within its share of the limits.
    static func shardCount(requested: Int?, countLimit: Int, entryCostLimitRatio: Double) -> Int {
        let byEntryCost = entryCostLimitRatio > 0 ? Int(min(1 / entryCostLimitRatio, 64)) : 64
        let wanted = min(requested ?? ProcessInfo.processInfo.activeProcessorCount * 4, Shards.count, byEntryCost, max(countLimit / 64, 1))
        var count = 1
        while count * 2 <= wanted { count *= 2 }
        return count
    }

    var shardCount: Int { shardMask + 1 }

    /// The index of the shard for a key's hash. Fibonacci hashing takes it from the hash's high
    /// bits, independent of the low bits that pick an entry's slot in the shard's table.
    @inlinable
    func shardIndex(forHash hash: Int) -> Int {
        let mixed = UInt64(bitPattern: Int64(hash)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & shardMask
    }

    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = keyHash.hash(key)
        // An expired value is released when this function returns, after the lock.
        var expired: Value?
        let clock = self.clock
        return shards[shardIndex(forHash: hash)].lru.withLock { $0.value(forKey: key, hash: hash, clock: clock, expired: &expired) }
    }

    /// Stores `value` with `cost` (bytes for images). A cost above `entryCostLimit` removes any
    /// entry under `key` instead, so a stale smaller value is not returned later.
    /// - Parameter timeToLive: overrides the cache's time to live for this entry.
    @inlinable
    public func set(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: TimeInterval? = nil) {
        let cost = max(cost, 0)
        let hash = keyHash.hash(key)
        let index = shardIndex(forHash: hash)
        guard cost <= entryCostLimit else {
            _ = shards[index].lru.withLock { $0.removeValue(forKey: key, hash: hash) }
            return
        }
        let expiry = (timeToLive ?? self.timeToLive).map { clock.seconds + $0 } ?? .infinity
        // Replaced and evicted values are released when this function returns, after the lock:
        // freeing a large image is not free.
        var evicted = Evictions<Value>()
        shards[index].lru.withLock { $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, evicted: &evicted) }
    }

    @inlinable
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    @inlinable @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let hash = keyHash.hash(key)
        return shards[shardIndex(forHash: hash)].lru.withLock { $0.removeValue(forKey: key, hash: hash) }
    }

    /// Whether a live entry exists, without making it more recently used.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        let hash = keyHash.hash(key)
        let clock = self.clock
        return shards[shardIndex(forHash: hash)].lru.withLock { $0.contains(key, hash: hash, clock: clock) }
    }

    public func removeAll() {
        for index in 0...shardMask {
            _ = shards[index].lru.withLock { $0.removeAll() }
        }
    }

    /// Removes every expired entry now (they are otherwise removed when next read or evicted).
    public func removeExpired() {
        let now = clock.seconds
        for index in 0...shardMask {
            var evicted = Evictions<Value>()
            shards[index].lru.withLock { $0.removeExpired(now: now, evicted: &evicted) }
        }
    }

    /// Evicts least recently used entries until the total cost is at most `cost` (each shard to
    /// its share of it).
    public func trim(toCost cost: Int) {
        let share = max(cost, 0) / shardCount
        for index in 0...shardMask {
            var evicted = Evictions<Value>()
            shards[index].lru.withLock { $0.evict(untilCost: share, count: .max, into: &evicted) }
        }
    }

    public var totalCost: Int { (0...shardMask).reduce(0) { sum, index in sum + shards[index].lru.withLock { $0.totalCost } } }
    public var totalCount: Int { (0...shardMask).reduce(0) { sum, index in sum + shards[index].lru.withLock { $0.count } } }

    /// Each shard's keys from most to least recently used, shard after shard (for tests and
    /// diagnostics; with one shard, the cache's exact order).
    var keysByRecency: [Key] { (0...shardMask).flatMap { index in shards[index].lru.withLock { $0.keysByRecency } } }
}

/// The defaults `MemoryCache` sizes itself from; a non-generic home for them because a generic type
/// cannot hold stored statics. `costLimit` is public for caches of other kinds that size themselves alike.
public enum MemoryCacheDefaults {
    /// The share of this process's memory a default cache may hold.
    static let memoryFraction = 0.2
    /// Used when neither /proc/meminfo nor a cgroup limit can be read.
    static let fallbackCostLimit = 512 * 1024 * 1024

    /// `memoryFraction` of the lower of RAM and the cgroup memory limit.
    public static let costLimit: Int = {
        guard let bytes = SystemMemory.availableBytes() else { return fallbackCostLimit }
        let share = Double(bytes) * memoryFraction
        return share >= Double(Int.max) ? Int.max : max(Int(share), 1)
    }()
}
