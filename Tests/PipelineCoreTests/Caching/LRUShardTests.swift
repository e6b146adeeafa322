import Testing
@testable import PipelineCore

@Suite("LRU shard")
struct LRUShardTests {
    /// Drives one shard with random sets and reads of 40 keys, evicting down to 30 entries, and
    /// compares its values and order with a plain-array LRU after every step, and the stamp it
    /// would publish with its least recently used entry's. Every other 1,000 steps only reads 5 of
    /// the keys, so the least recently used entry stays put while the others are reordered.
    @Test("Uses and evictions keep exactly an LRU's order, and the oldest stamp is the last entry's")
    func matchesModel() {
        var shard = LRUShard<Int, Int>()
        var evicted = Evictions<Int>()
        var order: [Int] = []  // most recent first
        var values: [Int: Int] = [:]
        var stamp: UInt64 = 0
        for step in 0..<20_000 {
            let readsOnlyHotKeys = step / 1_000 % 2 == 1
            let key = readsOnlyHotKeys ? Int.random(in: 0..<5) : Int.random(in: 0..<40)
            stamp += 1
            if !readsOnlyHotKeys && Bool.random() {
                shard.set(step, forKey: key, hash: key &* 0x9E37_79B9, cost: 1, expiry: .infinity, stamp: stamp, evicted: &evicted)
                values[key] = step
            } else {
                var expired: Int?
                let got = shard.value(forKey: key, hash: key &* 0x9E37_79B9, stamp: stamp, clock: .system, evicted: &expired)
                #expect(got == values[key], "step \(step): key \(key)")
                if got == nil { continue }
            }
            order.removeAll { $0 == key }
            order.insert(key, at: 0)
            if shard.count > 30 {
                shard.evictLeastRecent(into: &evicted)
                values[order.removeLast()] = nil
            }
            let recency = shard.keysByRecency
            #expect(recency.map(\.key) == order, "step \(step)")
            #expect(shard.tailStamp == recency.last?.stamp)
        }
        #expect(shard.count == order.count)
    }
}
