import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Memory cache")
struct MemoryCacheTests {
    /// One shard: one exact LRU, so eviction order is fully determined.
    func exact(cost: Int = 1000, count: Int = .max, ratio: Double = 1, ttl: TimeInterval? = nil, clock: CacheClock = .system) -> MemoryCache<String, Int> {
        MemoryCache(costLimit: cost, countLimit: count, entryCostLimitRatio: ratio, timeToLive: ttl, shardCount: 1, clock: clock)
    }

    @Test("The least recently used entry is evicted first; reading an entry protects it")
    func lruOrder() {
        let cache = exact(count: 3)
        cache.set(1, forKey: "a")
        cache.set(2, forKey: "b")
        cache.set(3, forKey: "c")
        #expect(cache.value(forKey: "a") == 1)  // a is now the most recent
        cache.set(4, forKey: "d")  // evicts b
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        cache.set(5, forKey: "c")  // replacing refreshes too
        cache.set(6, forKey: "e")  // evicts a
        #expect(cache.keysByRecency == ["e", "c", "d"])
        #expect(cache.totalCount == 3)
    }

    @Test("Cost limit evicts from the old end until the total fits")
    func costLimit() {
        let cache = exact(cost: 100)
        cache.set(1, forKey: "a", cost: 40)
        cache.set(2, forKey: "b", cost: 40)
        cache.set(3, forKey: "c", cost: 40)  // 120 > 100: a goes
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.totalCost == 80)
        cache.set(4, forKey: "b", cost: 90)  // replacing b's cost: c (older) goes
        #expect(cache.value(forKey: "c") == nil)
        #expect(cache.value(forKey: "b") == 4)
        #expect(cache.totalCost == 90)
        cache.trim(toCost: 0)
        #expect(cache.totalCount == 0)
        #expect(cache.totalCost == 0)
    }

    @Test("An entry costing more than the per-entry share is not kept, and drops a stale value")
    func entryCostLimit() {
        let cache = exact(cost: 1000, ratio: 0.1)
        #expect(cache.entryCostLimit == 100)
        cache.set(1, forKey: "small", cost: 100)
        #expect(cache.value(forKey: "small") == 1)
        cache.set(2, forKey: "small", cost: 101)
        #expect(cache.value(forKey: "small") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test("Entries expire after their time to live, read with the injected clock")
    func timeToLive() {
        let clock = TestClock()
        let cache = exact(ttl: 10, clock: clock.cacheClock)
        cache.set(1, forKey: "a")
        cache.set(2, forKey: "b", timeToLive: 100)
        clock.advance(by: 9.9)
        #expect(cache.value(forKey: "a") == 1)
        clock.advance(by: 0.1)
        #expect(cache.value(forKey: "a") == nil)
        #expect(!cache.contains("a"))
        #expect(cache.value(forKey: "b") == 2)
        clock.advance(by: 100)
        #expect(cache.contains("b") == false)
        cache.removeExpired()
        #expect(cache.totalCount == 0)
    }

    @Test("Replacing an entry replaces its time to live, in both directions")
    func replacingChangesTimeToLive() {
        let clock = TestClock()
        let cache = exact(clock: clock.cacheClock)
        cache.set(1, forKey: "expiring then kept", timeToLive: 5)
        cache.set(2, forKey: "expiring then kept")
        cache.set(3, forKey: "kept then expiring")
        cache.set(4, forKey: "kept then expiring", timeToLive: 5)
        clock.advance(by: 10)
        #expect(cache.value(forKey: "expiring then kept") == 2)
        #expect(cache.value(forKey: "kept then expiring") == nil)
        cache.removeExpired()
        #expect(cache.keysByRecency == ["expiring then kept"])
    }

    @Test("removeExpired among hundreds of entries keeps exactly the live ones, in recency order")
    func removeExpiredKeepsOrder() {
        // Enough entries that the table has grown several times, and removals in the middle of
        // probe runs move later entries back (backward shift) while the expired ones are removed.
        let clock = TestClock()
        let cache = exact(clock: clock.cacheClock)
        for i in 0..<600 { cache.set(i, forKey: "k\(i)", timeToLive: i % 3 == 0 ? 10 : 100) }
        for i in stride(from: 0, to: 600, by: 7) { _ = cache.value(forKey: "k\(i)") }
        let live = cache.keysByRecency.filter { Int($0.dropFirst())! % 3 != 0 }
        clock.advance(by: 50)
        cache.removeExpired()
        #expect(cache.totalCount == 400)
        #expect(cache.keysByRecency == live)
        #expect((0..<600).allSatisfy { cache.value(forKey: "k\($0)") == ($0 % 3 == 0 ? nil : $0) })
    }

    @Test("Remove, subscript and removeAll")
    func removal() {
        let cache = exact()
        cache["a"] = 1
        cache["b"] = 2
        #expect(cache.removeValue(forKey: "a") == 1)
        #expect(cache["a"] == nil)
        cache["b"] = nil
        #expect(cache.totalCount == 0)
        cache["c"] = 3
        cache.removeAll()
        #expect(cache.totalCount == 0)
        cache["d"] = 4  // reusable after removeAll
        #expect(cache["d"] == 4)
    }

    @Test("A long churn keeps exactly the limit and the newest entries")
    func churn() {
        let cache = exact(count: 100)
        for i in 0..<10_000 { cache.set(i, forKey: "k\(i)") }
        #expect(cache.totalCount == 100)
        #expect(cache.value(forKey: "k9999") == 9999)
        #expect(cache.value(forKey: "k9899") == nil)
        #expect(cache.value(forKey: "k9900") == 9900)
    }

    @Test("Sharded caches hold their limits exactly, each shard keeping its newest entries")
    func shardedLimits() {
        let cache = MemoryCache<String, Int>(costLimit: 10_000, countLimit: 1_000, entryCostLimitRatio: 0.1, shardCount: 8)
        #expect(cache.shardCount == 8)
        let key = { (i: Int) in "https://example.com/\(i).jpg" }
        for i in 0..<5_000 { cache.set(i, forKey: key(i), cost: 7) }
        #expect(cache.totalCount == 1_000)
        #expect(cache.totalCost == 7_000)
        // Every shard keeps its newest keys: what it holds is the end of what it was given.
        for shard in 0..<cache.shardCount {
            let given = (0..<5_000).filter { cache.shardIndex(forHash: cache.keyHash.hash(key($0))) == shard }
            let kept = given.filter { cache.contains(key($0)) }
            #expect(kept == Array(given.suffix(kept.count)))
        }
        // Shards fill unevenly, so a few of the newest 1,000 keys go (about 35 on average).
        #expect((4_000..<5_000).filter { cache.contains(key($0)) }.count >= 900)
        cache.set(0, forKey: "big", cost: 1_000)
        cache.set(0, forKey: "big2", cost: 1_000)
        #expect(cache.value(forKey: "big2") == 0)
        #expect(cache.totalCost <= 10_000)
    }

    @Test("Each shard can hold the largest entry the cache accepts; small count limits get one shard, so they are exact LRUs")
    func shardCount() {
        #expect(MemoryCache<String, Int>(costLimit: 1000, countLimit: 10).shardCount == 1)
        #expect(MemoryCache<String, Int>(costLimit: 1000, entryCostLimitRatio: 1).shardCount == 1)
        #expect(MemoryCache<String, Int>(costLimit: 1000, entryCostLimitRatio: 0.5, shardCount: 8).shardCount == 2)
        #expect(MemoryCache<String, Int>(costLimit: 1000, entryCostLimitRatio: 0.1, shardCount: 64).shardCount == 8)
        for ratio in [0.01, 0.1, 0.3, 0.5, 1] {
            let cache = MemoryCache<String, Int>(costLimit: 1_000_000, entryCostLimitRatio: ratio)
            #expect(cache.costLimit / cache.shardCount >= cache.entryCostLimit, "ratio \(ratio)")
            cache.set(1, forKey: "largest", cost: cache.entryCostLimit)
            #expect(cache.value(forKey: "largest") == 1, "ratio \(ratio)")
        }
    }

    @Test("Many tasks reading and writing at once keep the cache consistent")
    func concurrentUse() async {
        let cache = MemoryCache<String, Int>(costLimit: 5_000, countLimit: 500, entryCostLimitRatio: 0.1)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<5_000 {
                        let key = "k\((i * 7 + worker) % 800)"
                        if i % 4 == 0 {
                            cache.set(i, forKey: key, cost: 10)
                        } else {
                            _ = cache.value(forKey: key)
                        }
                    }
                }
            }
        }
        // Every insert's own eviction runs until the totals fit, so once all are done they do.
        #expect(cache.totalCount <= 500)
        #expect(cache.totalCost == cache.totalCount * 10)
        #expect(cache.keysByRecency.count == cache.totalCount)
    }

    /// Keys whose hashes collide a lot, so probing and deletion in the shard's index get exercised.
    struct CollidingKey: Hashable, Sendable {
        let id: Int
        func hash(into hasher: inout Hasher) { hasher.combine(id % 5) }
    }

    @Test("Random operations match a reference model of one LRU per shard, even when hashes collide", arguments: [1, 4, 8])
    func matchesModel(shards: Int) {
        let cache = MemoryCache<CollidingKey, Int>(costLimit: .max, countLimit: 64 * shards, entryCostLimitRatio: 0.1, shardCount: shards)
        #expect(cache.shardCount == shards)
        Self.checkAgainstModel(cache, ids: 3 * 64 * shards) { CollidingKey(id: $0) }
    }

    /// Drives `cache` with random sets, removes and reads of `ids` keys and checks values and
    /// recency order against plain-array LRUs, one per shard, each holding the shard's share of
    /// the count limit.
    static func checkAgainstModel<Key: Hashable & Sendable>(
        _ cache: MemoryCache<Key, Int>, ids: Int, key: (Int) -> Key
    ) {
        let capacity = cache.countLimit / cache.shardCount
        let shardOf = (0..<ids).map { cache.shardIndex(forHash: cache.keyHash.hash(key($0))) }
        var orders = [[Int]](repeating: [], count: cache.shardCount)
        var values: [Int: Int] = [:]
        var random = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = Int.random(in: 0..<ids, using: &random)
            let shard = shardOf[id]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                cache.set(step, forKey: key(id))
                values[id] = step
                orders[shard].removeAll { $0 == id }
                orders[shard].insert(id, at: 0)
                if orders[shard].count > capacity, let last = orders[shard].popLast() { values[last] = nil }
            case 4..<5:
                _ = cache.removeValue(forKey: key(id))
                values[id] = nil
                orders[shard].removeAll { $0 == id }
            default:
                let got = cache.value(forKey: key(id))
                #expect(got == values[id], "step \(step): key \(id)")
                if got != nil {
                    orders[shard].removeAll { $0 == id }
                    orders[shard].insert(id, at: 0)
                }
            }
        }
        #expect(cache.keysByRecency == orders.joined().map(key))
        #expect(cache.totalCount == values.count)
    }
}
