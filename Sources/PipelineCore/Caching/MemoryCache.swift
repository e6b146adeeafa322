import Foundation
import Synchronization

/// A thread-safe key → value cache limited by total cost and count, evicting the least recently
/// used entry first, every operation O(1).
///
/// Lock striping: entries are spread over `shardCount` shards by key hash, each an LRU list behind
/// its own `Mutex`, so two tasks touching different keys rarely wait for each other (a read moves
/// the entry to the front of its list, so even reads must lock; one global lock would serialise
/// every thread).
///
/// The limits are the whole cache's, not split between shards, and eviction follows one global LRU
/// order: a shared clock stamps every use, each shard publishes the stamp of its least recently
/// used entry, and the cache evicts from the shard whose entry is oldest. When calls do not overlap
/// the order is exactly one LRU's; uses racing each other are ordered by when they took their
/// stamp. The clock is one atomic increment per operation, on a cache line all threads write. At
/// two threads that costs up to a tenth (not advancing it ran 8–12 % faster); a per-thread clock
/// that publishes every 64 uses (tried) cost 29 more instructions per use, more than it saved. A
/// clock that only inserts advanced left the uses between two inserts unordered across shards, a
/// few hits per million short of the exact LRU (see `Benchmarks/cache-bench-RESULTS.md`). Splitting
/// the limits instead would let one shard evict an entry used a moment ago while another keeps one
/// untouched for minutes; with a shared budget, shards need not each hold the largest entry either,
/// so there can be many. Caches too small to split (count limit under 128) get one shard.
///
/// An entry whose cost is above `entryCostLimit` (by default 10 % of the cost limit, as Nuke does) is
/// not kept: one huge image would otherwise flush everything else.
///
/// The hot paths are `@inlinable` so they are specialised for the caller's `Key` and `Value`: a
/// generic cache called through witness tables from another module runs several times slower.
///
/// `@unchecked Sendable` because the shards, the totals and the published stamps live in memory
/// this class allocates once in `init` and frees in `deinit`; a shard's contents are reached only
/// through its `Mutex`, the rest are atomics. They are not objects because retaining a shard object
/// on every call would make all threads hammer the same reference counts.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    @usableFromInline typealias Shard = Mutex<LRUShard<Key, Value>>

    /// The sums over all shards, written by inserts, removals and evictions.
    @usableFromInline
    struct Totals: ~Copyable {
        @usableFromInline let cost = Atomic<Int>(0)
        /// Kept only when there is a count limit (`countsEntries`); `totalCount` otherwise adds up
        /// the shards. One atomic add fewer on every insert and eviction.
        @usableFromInline let count = Atomic<Int>(0)
        @usableFromInline init() {}
    }

    /// The shards, one every `shardStride` bytes.
    @usableFromInline let shardStorage: UnsafeMutableRawPointer
    @usableFromInline let totals: UnsafeMutablePointer<Totals>
    /// Advanced by every use, which stamps its entry with the new value. On its own cache line,
    /// apart from the totals, which only inserts, removals and evictions change.
    @usableFromInline let recencyClock: UnsafeMutablePointer<Atomic<UInt64>>
    /// Per shard, its `tailStamp` (`.max` when empty), packed together so that finding the oldest
    /// reads a few cache lines rather than one per shard, each contended by that shard's lock.
    @usableFromInline let tailStamps: UnsafeMutablePointer<Atomic<UInt64>>
    @usableFromInline let shardMask: Int
    @usableFromInline let clock: CacheClock
    @usableFromInline let keyHash = CacheKeyHash()
    @usableFromInline let timeToLive: TimeInterval?

    /// The limit on the sum of entry costs (bytes, for images).
    public let costLimit: Int
    public let countLimit: Int
    @usableFromInline let countsEntries: Bool
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
        countsEntries = self.countLimit != .max
        let ratio = min(max(entryCostLimitRatio, 0), 1)
        let entryLimit = Double(self.costLimit) * ratio
        self._entryCostLimit = entryLimit >= Double(Int.max) ? .max : Int(entryLimit)
        self.timeToLive = timeToLive
        self.clock = clock
        let shards = Self.shardCount(requested: shardCount, countLimit: self.countLimit)
        shardMask = shards - 1
        shardStorage = .allocateCacheAligned(byteCount: Self.shardStride * shards)
        for i in 0..<shards { shardStorage.advanced(by: Self.shardStride * i).initializeMemory(as: Shard.self, to: Mutex(LRUShard())) }
        totals = .allocateCacheAligned(capacity: 1)
        totals.initialize(to: Totals())
        recencyClock = .allocateCacheAligned(capacity: 1)
        recencyClock.initialize(to: Atomic(0))
        tailStamps = .allocateCacheAligned(capacity: shards)
        for i in 0..<shards { (tailStamps + i).initialize(to: Atomic(.max)) }
    }

    deinit {
        for i in 0...shardMask { _ = shard(i).deinitialize(count: 1) }
        shardStorage.deallocate()
        totals.deinitialize(count: 1)
        totals.deallocate()
        recencyClock.deinitialize(count: 1)
        recencyClock.deallocate()
        tailStamps.deinitialize(count: shardMask + 1)
        tailStamps.deallocate()
    }

    /// A power of two: many shards for many cores, but not so many that a small count limit is
    /// split into uselessly tiny tables.
    private static func shardCount(requested: Int?, countLimit: Int) -> Int {
        var wanted = requested ?? ProcessInfo.processInfo.activeProcessorCount * 8
        wanted = min(wanted, 64, max(countLimit / 64, 1))
        var shards = 1
        while shards * 2 <= wanted { shards *= 2 }
        return shards
    }

    /// Each shard starts on its own pair of cache lines, so the lock and the fields every use
    /// touches share one line (see `LRUShard`), and no two shards share a line: a write to one
    /// does not stall a thread working on its neighbour.
    @inlinable
    static var shardStride: Int { MemoryLayout<Shard>.stride.roundedUpToCacheAlignment }

    @inlinable
    func shard(_ index: Int) -> UnsafeMutablePointer<Shard> {
        shardStorage.advanced(by: Self.shardStride &* index).assumingMemoryBound(to: Shard.self)
    }

    /// The shard for a key's hash. Fibonacci hashing takes the shard from the hash's high bits,
    /// independent of the low bits that pick an entry's home slot in the shard's table.
    @inlinable
    func shardIndex(forHash hash: Int) -> Int {
        let mixed = UInt64(bitPattern: Int64(hash)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & shardMask
    }

    @inlinable
    func nowSeconds() -> Double { clock.seconds }

    /// Runs `body` on a shard under its lock, then carries what it changed to the shared totals
    /// and the shard's published tail stamp, still under the lock so updates from one shard are
    /// never published out of order.
    /// Always inlined: as a call, `body` becomes a closure called indirectly, with its captures
    /// retained (seen in the release build's profile: a reference-count pair more per set).
    @inlinable @inline(__always)
    func withShard<Result>(_ index: Int, _ body: (inout LRUShard<Key, Value>) -> Result) -> Result {
        // Copied out rather than read through `self` in the closure: capturing `self` retains the
        // cache object on every call, one reference count that every thread would write.
        let publication = Publication(totals: totals, countsEntries: countsEntries, tailStamp: tailStamps + index)
        return shard(index).pointee.withLock { shard in
            let result = body(&shard)
            if !shard.unpublished.isEmpty { Self.publishChanges(of: &shard, to: publication) }
            return result
        }
    }

    /// Where one shard's changes go: the shared totals and the shard's published oldest entry.
    /// `@unchecked Sendable`: it only points at atomics.
    @usableFromInline
    struct Publication: @unchecked Sendable {
        @usableFromInline let totals: UnsafeMutablePointer<Totals>
        @usableFromInline let countsEntries: Bool
        @usableFromInline let tailStamp: UnsafeMutablePointer<Atomic<UInt64>>

        @inlinable
        init(totals: UnsafeMutablePointer<Totals>, countsEntries: Bool, tailStamp: UnsafeMutablePointer<Atomic<UInt64>>) {
            self.totals = totals
            self.countsEntries = countsEntries
            self.tailStamp = tailStamp
        }
    }

    /// The part of `withShard` most reads skip: carrying a change in the shard's totals to the
    /// shared ones, and publishing its oldest entry when that moved. Out of line, to keep every
    /// operation's inlined code to the common path.
    @inlinable @inline(never)
    static func publishChanges(of shard: inout LRUShard<Key, Value>, to publication: Publication) {
        let totals = publication.totals
        if shard.unpublished.contains(.totals) {
            if shard.totalCost != shard.publishedCost {
                totals.pointee.cost.wrappingAdd(shard.totalCost &- shard.publishedCost, ordering: .relaxed)
                shard.publishedCost = shard.totalCost
            }
            if publication.countsEntries, shard.count != shard.publishedCount {
                totals.pointee.count.wrappingAdd(shard.count &- shard.publishedCount, ordering: .relaxed)
                shard.publishedCount = shard.count
            }
        }
        if shard.unpublished.contains(.tail) {
            let stamp = shard.tailStamp
            if stamp != shard.publishedTailStamp {
                shard.publishedTailStamp = stamp
                publication.tailStamp.pointee.store(stamp, ordering: .relaxed)
            }
        }
        shard.unpublished = []
    }

    /// The stamp for a use happening now: one more than the last use's, from any thread.
    @inlinable @inline(__always)
    func nextStamp() -> UInt64 { recencyClock.pointee.wrappingAdd(1, ordering: .relaxed).newValue }

    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = keyHash.hash(key)
        let stamp = nextStamp()
        // An expired value is released when this function returns, after the lock.
        var expired: Value?
        let clock = self.clock
        return withShard(shardIndex(forHash: hash)) { $0.value(forKey: key, hash: hash, stamp: stamp, clock: clock, evicted: &expired) }
    }

    /// Stores `value` with `cost` (bytes for images). A cost above `entryCostLimit` removes any
    /// entry under `key` instead, so a stale smaller value is not returned later.
    /// - Parameter timeToLive: overrides the cache's time to live for this entry.
    @inlinable
    public func set(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: TimeInterval? = nil) {
        let cost = max(cost, 0)
        let hash = keyHash.hash(key)
        let index = shardIndex(forHash: hash)
        guard cost <= _entryCostLimit else {
            _ = withShard(index) { $0.removeValue(forKey: key, hash: hash) }
            return
        }
        let expiry = (timeToLive ?? self.timeToLive).map { nowSeconds() + $0 } ?? .infinity
        let stamp = nextStamp()
        // Evicted values are released when this function returns, outside the lock: freeing a large
        // image is not free.
        var evicted = Evictions<Value>()
        withShard(index) { $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, stamp: stamp, evicted: &evicted) }
        if isOverLimits(cost: costLimit, count: countLimit) { evictLeastRecent(untilCost: costLimit, count: countLimit, into: &evicted) }
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
        return withShard(shardIndex(forHash: hash)) { $0.removeValue(forKey: key, hash: hash) }
    }

    /// Whether a live entry exists, without making it more recently used.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        let hash = keyHash.hash(key)
        let clock = self.clock
        return shard(shardIndex(forHash: hash)).pointee.withLock { $0.contains(key, hash: hash, clock: clock) }
    }

    // MARK: Eviction

    /// Evicts the least recently used entries, across shards, while the totals are above `cost` or
    /// `count`. Each round locks only the shard whose oldest entry is oldest of all. When another
    /// task evicts at the same time, both may take one entry each where one would have done; the
    /// totals never stay above the limits.
    @inlinable
    func evictLeastRecent(untilCost cost: Int, count: Int, into evicted: inout Evictions<Value>) {
        while isOverLimits(cost: cost, count: count) {
            guard let oldest = shardWithOldestEntry() else { return }
            withShard(oldest) { shard in
                // Another task may have evicted meanwhile, or this shard's stamp was stale.
                if isOverLimits(cost: cost, count: count) { shard.evictLeastRecent(into: &evicted) }
            }
        }
    }

    /// Whether the totals are above `cost` or `count` (the count only when entries are counted).
    @inlinable @inline(__always)
    func isOverLimits(cost: Int, count: Int) -> Bool {
        totals.pointee.cost.load(ordering: .relaxed) > cost || countsEntries && totals.pointee.count.load(ordering: .relaxed) > count
    }

    /// The shard whose least recently used entry has the lowest stamp; nil when all are empty.
    @inlinable
    func shardWithOldestEntry() -> Int? {
        var oldest = UInt64.max, index: Int?
        for shard in 0...shardMask {
            let stamp = tailStamps[shard].load(ordering: .relaxed)
            if stamp < oldest {
                oldest = stamp
                index = shard
            }
        }
        return index
    }

    public func removeAll() {
        for index in 0...shardMask {
            _ = withShard(index) { $0.removeAll() }
        }
    }

    /// Removes every expired entry now (they are otherwise removed when next read or evicted).
    public func removeExpired() {
        let now = nowSeconds()
        for index in 0...shardMask {
            var evicted = Evictions<Value>()
            withShard(index) { $0.removeExpired(now: now, evicted: &evicted) }
        }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        var evicted = Evictions<Value>()
        evictLeastRecent(untilCost: max(cost, 0), count: .max, into: &evicted)
    }

    public var totalCost: Int { totals.pointee.cost.load(ordering: .relaxed) }
    public var totalCount: Int {
        if countsEntries { return totals.pointee.count.load(ordering: .relaxed) }
        return (0...shardMask).reduce(0) { sum, index in sum + shard(index).pointee.withLock { $0.count } }
    }

    /// Keys from most to least recently used, by the stamps of their last use, which every use
    /// takes anew, so no two are equal (for tests and diagnostics).
    var keysByRecency: [Key] {
        (0...shardMask).flatMap { index in shard(index).pointee.withLock { $0.keysByRecency } }
            .sorted { $0.stamp > $1.stamp }
            .map(\.key)
    }
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
