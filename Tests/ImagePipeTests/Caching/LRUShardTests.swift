import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("LRU shard")
struct LRUShardTests {
    /// Drives one shard with random sets, reads and removals of 60 keys whose hashes share a few
    /// home slots (long probe runs, so removals shift entries back), with a count limit of 30, and
    /// compares its values and order with a plain-array LRU after every step.
    @Test("Uses, removals and evictions keep exactly an LRU's order, through growth and backward shifts")
    func matchesModel() {
        var shard = LRUShard<Int, Int>(costLimit: .max, countLimit: 30)
        var evicted = Evictions<Int>()
        var order: [Int] = []  // most recent first
        var values: [Int: Int] = [:]
        let hash = { (key: Int) in key % 7 &* 0x9E37_79B9 }
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<60)
            switch Int.random(in: 0..<10) {
            case 0..<4:
                shard.set(step, forKey: key, hash: hash(key), cost: 1, expiry: .infinity, evicted: &evicted)
                values[key] = step
                order.removeAll { $0 == key }
                order.insert(key, at: 0)
                if order.count > 30 { values[order.removeLast()] = nil }
            case 4:
                #expect(shard.removeValue(forKey: key, hash: hash(key)) == values[key])
                values[key] = nil
                order.removeAll { $0 == key }
            default:
                let got: Int? = if case .hit(let value) = shard.value(forKey: key, hash: hash(key), clock: .system) { value } else { nil }
                #expect(got == values[key], "step \(step): key \(key)")
                if got != nil {
                    order.removeAll { $0 == key }
                    order.insert(key, at: 0)
                }
            }
            #expect(shard.keysByRecency == order, "step \(step)")
        }
        #expect(shard.count == order.count)
        #expect(shard.totalCost == order.count)
    }

    @Test("The cost limit evicts the oldest entries until the shard fits, and a replaced value comes back to be released")
    func costLimitAndReleasedValues() {
        var shard = LRUShard<String, Int>(costLimit: 100, countLimit: .max)
        var evicted = Evictions<Int>()
        shard.set(1, forKey: "a", hash: 1, cost: 40, expiry: .infinity, evicted: &evicted)
        shard.set(2, forKey: "b", hash: 2, cost: 40, expiry: .infinity, evicted: &evicted)
        shard.set(3, forKey: "a", hash: 1, cost: 40, expiry: .infinity, evicted: &evicted)
        #expect(evicted.first == 1)
        shard.set(4, forKey: "c", hash: 3, cost: 50, expiry: .infinity, evicted: &evicted)
        #expect(evicted.rest == [2])
        #expect(shard.keysByRecency == ["c", "a"])
        #expect(shard.totalCost == 90)
    }
}
