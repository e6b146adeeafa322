import Foundation
import Synchronization

/// A thread-safe key → value cache limited by total cost and count, evicting the least recently
/// used entry first, every operation O(1).
///
/// Lock striping: entries are spread over `shardCount` shards by key hash, each an exact LRU behind
/// its own `Mutex`, so two tasks touching different keys rarely wait for each other (a read moves
/// the entry to the front of its list, so even reads must lock; one global lock would serialise
/// every thread). The price is that eviction is exact per shard and only statistically global: each
/// shard holds `1/shardCount` of the limits. With `shardCount: 1` the whole cache is one exact LRU;
/// caches too small to split (count limit under 128) get one shard automatically.
///
/// An entry whose cost is above `entryCostLimit` (by default 10 % of the cost limit, as Nuke does) is
/// not kept: one huge image would otherwise flush everything else.
///
/// The hot paths are `@inlinable` so they are specialised for the caller's `Key` and `Value`: a
/// generic cache called through witness tables from another module runs several times slower.
///
/// `@unchecked Sendable` because the stripes live in memory this class allocates once in `init`
/// and frees in `deinit`; every access to a stripe's contents goes through its `Mutex`. They are
/// not objects in an array because retaining a stripe object on every call would make all threads
/// hammer the same reference counts, the contention striping exists to avoid.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// Padding keeps two shards' locks off one cache line, so a write to one shard doesn't stall a
    /// thread working on its neighbour.
    @usableFromInline
    struct Stripe: ~Copyable {
        @usableFromInline let shard: Mutex<LRUShard<Key, Value>>
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        @usableFromInline init(costLimit: Int, countLimit: Int) { shard = Mutex(LRUShard(costLimit: costLimit, countLimit: countLimit)) }
    }

    @usableFromInline let stripes: UnsafeMutablePointer<Stripe>
    @usableFromInline let shardMask: Int
    @usableFromInline let clock: CacheClock
    @usableFromInline let timeToLive: TimeInterval?

    /// The limit on the sum of entry costs (bytes, for images).
    public let costLimit: Int
    public let countLimit: Int
    /// Entries costing more than this are not kept.
    @usableFromInline let _entryCostLimit: Int
    public var entryCostLimit: Int { _entryCostLimit }
    public var shardCount: Int { shardMask + 1 }

    /// - Parameters:
    ///   - costLimit: total cost kept; defaults to a fifth of the memory this process may use (RAM
    ///     or the cgroup limit, whichever is lower). Never unlimited: a server's cache that grows
    ///     without bound is a slow leak.
    ///   - countLimit: entries kept; `Int.max` leaves only the cost limit.
    ///   - entryCostLimitRatio: entries costing more than this fraction of `costLimit` are not kept.
    ///   - timeToLive: entries older than this are misses; nil keeps them until evicted.
    ///   - shardCount: lock stripes, rounded down to a power of two; nil picks from the CPU count.
    ///   - clock: the time source for `timeToLive`.
    public init(
        costLimit: Int = MemoryCacheDefaults.costLimit,
        countLimit: Int = .max,
        entryCostLimitRatio: Double = 0.1,
        timeToLive: TimeInterval? = nil,
        shardCount: Int? = nil,
        clock: CacheClock = .system
    ) {
        self.costLimit = max(costLimit, 0)
        self.countLimit = max(countLimit, 0)
        let ratio = min(max(entryCostLimitRatio, 0), 1)
        let entryLimit = Double(self.costLimit) * ratio
        self._entryCostLimit = entryLimit >= Double(Int.max) ? .max : Int(entryLimit)
        self.timeToLive = timeToLive
        self.clock = clock
        let shards = Self.shardCount(requested: shardCount, countLimit: self.countLimit, entryCostLimitRatio: ratio)
        shardMask = shards - 1
        // Ceiling division, so the shards' limits add up to at least the cache's.
        let shardCost = self.costLimit / shards + (self.costLimit % shards == 0 ? 0 : 1)
        let shardCountLimit = self.countLimit == .max ? .max : (self.countLimit + shards - 1) / shards
        stripes = .allocate(capacity: shards)
        for i in 0..<shards { (stripes + i).initialize(to: Stripe(costLimit: shardCost, countLimit: shardCountLimit)) }
    }

    deinit {
        stripes.deinitialize(count: shardMask + 1)
        stripes.deallocate()
    }

    /// A power of two: many stripes for many cores, but never so many that a shard's share of the
    /// cost limit is below the largest entry allowed, nor that a small count limit is split into
    /// uselessly tiny LRUs.
    private static func shardCount(requested: Int?, countLimit: Int, entryCostLimitRatio: Double) -> Int {
        var wanted = requested ?? ProcessInfo.processInfo.activeProcessorCount * 4
        wanted = min(wanted, 64, max(countLimit / 64, 1))
        if entryCostLimitRatio > 0 { wanted = min(wanted, max(Int(1 / entryCostLimitRatio), 1)) }
        var shards = 1
        while shards * 2 <= wanted { shards *= 2 }
        return shards
    }

    /// The stripe for a key's hash. Fibonacci hashing takes the stripe from the hash's high bits,
    /// independent of the low bits that pick an entry's home slot in the shard's table.
    @inlinable
    func stripe(forHash hash: Int) -> Int {
        let mixed = UInt64(bitPattern: Int64(hash)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & shardMask
    }

    @inlinable
    func nowSeconds() -> Double { clock.seconds }

    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = CacheKeyHash.hash(key)
        // An expired value is released when this function returns, after the lock.
        var expired: Value?
        // The clock is copied out rather than read through `self` in the closure: capturing `self`
        // retains the cache object on every call, one reference count that every thread would
        // write, inside the lock.
        let clock = self.clock
        return stripes[stripe(forHash: hash)].shard.withLock { $0.value(forKey: key, hash: hash, clock: clock, evicted: &expired) }
    }

    /// Stores `value` with `cost` (bytes for images). A cost above `entryCostLimit` removes any
    /// entry under `key` instead, so a stale smaller value is not returned later.
    /// - Parameter timeToLive: overrides the cache's time to live for this entry.
    @inlinable
    public func set(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: TimeInterval? = nil) {
        let cost = max(cost, 0)
        let hash = CacheKeyHash.hash(key)
        let stripe = stripe(forHash: hash)
        guard cost <= _entryCostLimit else {
            _ = stripes[stripe].shard.withLock { $0.removeValue(forKey: key, hash: hash) }
            return
        }
        let expiry = (timeToLive ?? self.timeToLive).map { nowSeconds() + $0 } ?? .infinity
        // Evicted values are released when this function returns, outside the lock: freeing a large
        // image is not free.
        var evicted = Evictions<Value>()
        stripes[stripe].shard.withLock { $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, evicted: &evicted) }
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
        let hash = CacheKeyHash.hash(key)
        return stripes[stripe(forHash: hash)].shard.withLock { $0.removeValue(forKey: key, hash: hash) }
    }

    /// Whether a live entry exists, without making it more recently used.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        let hash = CacheKeyHash.hash(key)
        let clock = self.clock
        return stripes[stripe(forHash: hash)].shard.withLock { $0.contains(key, hash: hash, clock: clock) }
    }

    public func removeAll() {
        for stripe in 0...shardMask {
            _ = stripes[stripe].shard.withLock { $0.removeAll() }
        }
    }

    /// Removes every expired entry now (they are otherwise removed when next read or evicted).
    public func removeExpired() {
        let now = nowSeconds()
        for stripe in 0...shardMask {
            var evicted = Evictions<Value>()
            stripes[stripe].shard.withLock { $0.removeExpired(now: now, evicted: &evicted) }
        }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        let share = max(cost, 0) / shardCount
        for stripe in 0...shardMask {
            var evicted = Evictions<Value>()
            stripes[stripe].shard.withLock { $0.trim(toCost: share, count: .max, evicted: &evicted) }
        }
    }

    public var totalCost: Int { (0...shardMask).reduce(0) { sum, stripe in sum + stripes[stripe].shard.withLock { $0.totalCost } } }
    public var totalCount: Int { (0...shardMask).reduce(0) { sum, stripe in sum + stripes[stripe].shard.withLock { $0.count } } }

    /// Keys from most to least recently used, shard by shard (for tests and diagnostics).
    var keysByRecency: [Key] { (0...shardMask).flatMap { stripe in stripes[stripe].shard.withLock { $0.keysByRecency } } }
}

/// The defaults `MemoryCache` sizes itself from; a non-generic home for them because a generic type
/// cannot hold stored statics.
public enum MemoryCacheDefaults {
    /// The share of this process's memory a default cache may hold.
    public static let memoryFraction = 0.2
    /// Used when neither /proc/meminfo nor a cgroup limit can be read.
    public static let fallbackCostLimit = 512 * 1024 * 1024

    /// `memoryFraction` of the lower of RAM and the cgroup memory limit.
    public static let costLimit: Int = {
        guard let bytes = SystemMemory.availableBytes() else { return fallbackCostLimit }
        let share = Double(bytes) * memoryFraction
        return share >= Double(Int.max) ? Int.max : max(Int(share), 1)
    }()
}
