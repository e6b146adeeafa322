import Foundation
import PipelineCore
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
/// The limits can be changed while the cache is in use (evicting at once when lowered), and
/// `purge(level:)` frees memory under pressure (`MemoryPressureWatcher` calls it from the
/// cgroup's or the kernel's pressure reports). A cache of images can keep a weak table beside
/// the LRU (`usesWeakCache`, SDWebImage's `shouldUseWeakMemoryCache`).
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

    /// The limits as set; writers hold the lock while they hand each shard its share.
    struct Limits: Sendable {
        var cost: Int
        var count: Int
        var entryCostLimitRatio: Double
    }

    /// A fixed number of shards, so that their locks live inside the cache object and a call
    /// reaches its shard without retaining anything; only the first `shardMask + 1` are used.
    @usableFromInline typealias Shards = InlineArray<16, Shard>

    @usableFromInline let shards: Shards
    @usableFromInline let shardMask: Int
    @usableFromInline let keyHash = CacheKeyHash()
    @usableFromInline let clock: CacheClock
    @usableFromInline let timeToLive: TimeInterval?
    let limits: Mutex<Limits>
    /// `limits`' entry cost limit, read by every `set` without taking the lock.
    @usableFromInline let entryCostLimitStorage: Atomic<Int>
    /// How a value becomes a weak reference: set for caches of images, nil for other values.
    @usableFromInline let makeWeakReference: (@Sendable (Value) -> WeakReference<Value>)?
    /// Whether stores also go to the weak table and misses look there.
    @usableFromInline let weakCacheEnabled = Atomic(false)

    /// The limit on the sum of entry costs (bytes, for images). Lowering it evicts at once.
    public var costLimit: Int {
        get { limits.withLock { $0.cost } }
        set { setLimits { $0.cost = max(newValue, 0) } }
    }

    /// The limit on the number of entries. Lowering it evicts at once. Each shard holds its share
    /// (the shard count is chosen at init from the limits then), so a count limit under the shard
    /// count leaves some shards unable to hold anything.
    public var countLimit: Int {
        get { limits.withLock { $0.count } }
        set { setLimits { $0.count = max(newValue, 0) } }
    }

    /// Entries costing more than this fraction of `costLimit` are not kept.
    public var entryCostLimitRatio: Double {
        get { limits.withLock { $0.entryCostLimitRatio } }
        set { setLimits { $0.entryCostLimitRatio = min(max(newValue, 0), 1) } }
    }

    /// Entries costing more than this are not kept: `entryCostLimitRatio` of `costLimit`.
    @inlinable var entryCostLimit: Int { entryCostLimitStorage.load(ordering: .relaxed) }

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
        self.init(
            costLimit: costLimit, countLimit: countLimit, entryCostLimitRatio: entryCostLimitRatio,
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
        let limits = Limits(cost: max(costLimit, 0), count: max(countLimit, 0), entryCostLimitRatio: min(max(entryCostLimitRatio, 0), 1))
        self.limits = Mutex(limits)
        entryCostLimitStorage = Atomic(Self.entryCostLimit(of: limits))
        self.timeToLive = timeToLive
        self.clock = clock
        makeWeakReference = Image.makeWeakReference as? @Sendable (Value) -> WeakReference<Value>
        let count = Self.shardCount(requested: shardCount, countLimit: limits.count, entryCostLimitRatio: limits.entryCostLimitRatio)
        shardMask = count - 1
        shards = InlineArray { index in
            Shard(costLimit: Self.share(of: limits.cost, shard: index, of: count), countLimit: Self.share(of: limits.count, shard: index, of: count))
        }
    }

    static func entryCostLimit(of limits: Limits) -> Int {
        let limit = Double(limits.cost) * limits.entryCostLimitRatio
        return limit >= Double(Int.max) ? .max : Int(limit)
    }

    /// Shard `index`'s part of `limit`: an equal share, the remainder spread over the first shards,
    /// so the shares add up to the limit.
    static func share(of limit: Int, shard index: Int, of count: Int) -> Int {
        limit / count + (index < limit % count ? 1 : 0)
    }

    /// Changes the limits and hands every shard its share, each evicting at once what no longer fits.
    private func setLimits(_ change: (inout Limits) -> Void) {
        limits.withLock { limits in
            change(&limits)
            entryCostLimitStorage.store(Self.entryCostLimit(of: limits), ordering: .relaxed)
            let count = shardCount
            for index in 0..<count {
                var evicted = Evictions<Value>()
                let share = (cost: Self.share(of: limits.cost, shard: index, of: count), count: Self.share(of: limits.count, shard: index, of: count))
                shards[index].lru.withLock { $0.setLimits(cost: share.cost, count: share.count, evicted: &evicted) }
            }
        }
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

    /// The value, made most recently used. With the weak cache on, a miss whose value is still in
    /// use elsewhere puts it back and returns it.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = keyHash.hash(key)
        let clock = self.clock
        let index = shardIndex(forHash: hash)
        // An expired value is released when the answer goes, after the lock.
        if case .hit(let value) = shards[index].lru.withLock({ $0.value(forKey: key, hash: hash, clock: clock) }) { return value }
        guard weakCacheEnabled.load(ordering: .relaxed) else { return nil }
        return revive(key, hash: hash, shard: index)
    }

    /// A miss's value from the weak table, put back into the LRU. Out of line: the rare path.
    @usableFromInline
    func revive(_ key: Key, hash: Int, shard index: Int) -> Value? {
        var evicted = Evictions<Value>()
        let clock = self.clock, entryCostLimit = self.entryCostLimit
        return shards[index].lru.withLock {
            $0.revive(key, hash: hash, now: { clock.seconds }, entryCostLimit: entryCostLimit, evicted: &evicted)
        }
    }

    /// Stores `value` with `cost` (bytes for images). A cost above `entryCostLimit` removes any
    /// entry under `key` instead, so a stale smaller value is not returned later.
    /// `timeToLive` overrides the cache's time to live for this entry.
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
        if let makeWeakReference, weakCacheEnabled.load(ordering: .relaxed) {
            return set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, keepingWeakly: makeWeakReference)
        }
        // Replaced and evicted values are released when this function returns, after the lock:
        // freeing a large image is not free.
        var evicted = Evictions<Value>()
        shards[index].lru.withLock { $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, evicted: &evicted) }
    }

    /// `set` with the weak cache on: the value also goes to its shard's weak table. Out of line, so
    /// that a plain `set` carries no weak entry, which (holding a weak reference) is copied and
    /// destroyed through its type's metadata even when nil.
    @usableFromInline
    func set(_ value: Value, forKey key: Key, hash: Int, cost: Int, expiry: Double, keepingWeakly makeWeakReference: (Value) -> WeakReference<Value>) {
        let weak = WeakEntry(reference: makeWeakReference(value), cost: cost, expiry: expiry)
        var evicted = Evictions<Value>()
        shards[shardIndex(forHash: hash)].lru.withLock {
            $0.keepWeakly(weak, forKey: key)
            $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, evicted: &evicted)
        }
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

    /// Removes every entry, the weak table's too.
    public func removeAll() {
        for index in 0...shardMask {
            _ = shards[index].lru.withLock { $0.removeAll(keepingWeakValues: false) }
        }
    }

    /// Frees memory under pressure: `.moderate` evicts the least recently used entries down to half
    /// the limits, `.critical` removes every entry. The weak table stays (SDWebImage keeps it
    /// through a memory warning): an image still in use elsewhere costs nothing more to keep
    /// findable, and comes back on its next lookup.
    public func purge(level: MemoryPressure) {
        for index in 0...shardMask {
            switch level {
            case .moderate:
                var evicted = Evictions<Value>()
                shards[index].lru.withLock { $0.evict(untilCost: $0.costLimit / 2, count: $0.countLimit / 2, into: &evicted) }
            case .critical:
                _ = shards[index].lru.withLock { $0.removeAll(keepingWeakValues: true) }
            }
        }
    }

    /// Removes every expired entry now (they are otherwise removed when next read or evicted).
    func removeExpired() {
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

    /// Entries in the weak tables, dead ones not yet swept included (for tests).
    var weakTableCount: Int { (0...shardMask).reduce(0) { sum, index in sum + shards[index].lru.withLock { $0.weakValues.count } } }
}

extension MemoryCache where Value == Image {
    /// SDWebImage's `shouldUseWeakMemoryCache`, off by default as there since 5.12: every image
    /// stored is also kept in a weak table, and a lookup that misses (evicted, purged) but finds the
    /// image still alive elsewhere (a request or a view still holds it) puts it back with its cost
    /// and returns it, instead of a decode. The table holds no pixels; a purge keeps it, `removeAll`
    /// and `removeValue` empty it. Turning it off empties it.
    public var usesWeakCache: Bool {
        get { weakCacheEnabled.load(ordering: .relaxed) }
        set {
            weakCacheEnabled.store(newValue, ordering: .relaxed)
            guard !newValue else { return }
            for index in 0...shardMask {
                shards[index].lru.withLock { $0.weakValues.removeAll() }
            }
        }
    }
}

/// The defaults `MemoryCache` sizes itself from; a non-generic home for them because a generic type
/// cannot hold stored statics. `costLimit` is public for caches of other kinds that size themselves alike.
@usableFromInline package enum MemoryCacheDefaults {
    /// The share of this process's memory a default cache may hold.
    static let memoryFraction = 0.2
    /// Used when neither /proc/meminfo nor a cgroup limit can be read.
    static let fallbackCostLimit = 512 * 1024 * 1024

    /// `memoryFraction` of the lower of RAM and the cgroup memory limit.
    @usableFromInline package static let costLimit: Int = {
        guard let bytes = SystemMemory.availableBytes() else { return fallbackCostLimit }
        let share = Double(bytes) * memoryFraction
        return share >= Double(Int.max) ? Int.max : max(Int(share), 1)
    }()
}
