/// One lock stripe of `MemoryCache`: an exact LRU over a hash map and a doubly linked list.
///
/// The list's nodes live in arrays and link by index, so moving a node to the front writes two
/// integers instead of retaining and releasing objects (ARC traffic on every read would cost more
/// than the lookup). Freed slots are reused through a free list, so the arrays stop growing once
/// the cache is full. Not thread-safe by itself: `MemoryCache` guards each shard with its own lock.
struct LRUShard<Key: Hashable, Value> {
    private struct Node {
        var key: Key?
        var value: Value?
        var cost: Int
        /// Seconds since the reference date after which the entry is gone; `.infinity` for none.
        var expiry: Double
        var previous: Int
        var next: Int
    }

    private static var none: Int { -1 }

    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    /// Most recently used.
    private var head = LRUShard.none
    /// Least recently used: evicted first.
    private var tail = LRUShard.none

    var costLimit: Int
    var countLimit: Int
    private(set) var totalCost = 0
    var count: Int { index.count }

    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    /// The value, made most recently used; nil when absent or expired at `now` (an expired entry is
    /// removed and handed back in `evicted` so its value is released outside the lock).
    mutating func value(forKey key: Key, now: () -> Double, evicted: inout Value?) -> Value? {
        guard let slot = index[key] else { return nil }
        if nodes[slot].expiry != .infinity, nodes[slot].expiry <= now() {
            evicted = remove(slot: slot)
            return nil
        }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Whether a live entry exists, without changing the order.
    func contains(_ key: Key, now: () -> Double) -> Bool {
        guard let slot = index[key] else { return false }
        return nodes[slot].expiry == .infinity || nodes[slot].expiry > now()
    }

    /// Inserts or replaces, then evicts least recently used entries until both limits hold.
    /// Replaced and evicted values are appended to `evicted` so they are released outside the lock.
    mutating func set(_ value: Value, forKey key: Key, cost: Int, expiry: Double, evicted: inout [Value]) {
        if let slot = index[key] {
            totalCost += cost - nodes[slot].cost
            if let old = nodes[slot].value { evicted.append(old) }
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].expiry = expiry
            moveToFront(slot)
        } else {
            let node = Node(key: key, value: value, cost: cost, expiry: expiry, previous: Self.none, next: Self.none)
            let slot: Int
            if let reused = freeSlots.popLast() {
                nodes[reused] = node
                slot = reused
            } else {
                nodes.append(node)
                slot = nodes.count - 1
            }
            index[key] = slot
            totalCost += cost
            linkAtFront(slot)
        }
        trim(toCost: costLimit, count: countLimit, evicted: &evicted)
    }

    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        return remove(slot: slot)
    }

    /// Evicts from the least recently used end until cost ≤ `cost` and count ≤ `count`.
    mutating func trim(toCost cost: Int, count: Int, evicted: inout [Value]) {
        while tail != Self.none, totalCost > cost || index.count > count {
            if let value = remove(slot: tail) { evicted.append(value) }
        }
    }

    /// Removes every entry expired at `now`.
    mutating func removeExpired(now: Double, evicted: inout [Value]) {
        var slot = tail
        while slot != Self.none {
            let previous = nodes[slot].previous
            if nodes[slot].expiry <= now, let value = remove(slot: slot) { evicted.append(value) }
            slot = previous
        }
    }

    /// Drops everything and the storage with it.
    mutating func removeAll() -> [Value] {
        let values = nodes.compactMap(\.value)
        self = LRUShard(costLimit: costLimit, countLimit: countLimit)
        return values
    }

    /// Keys from most to least recently used.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = head
        while slot != Self.none {
            if let key = nodes[slot].key { keys.append(key) }
            slot = nodes[slot].next
        }
        return keys
    }

    private mutating func remove(slot: Int) -> Value? {
        unlink(slot)
        if let key = nodes[slot].key { index[key] = nil }
        totalCost -= nodes[slot].cost
        let value = nodes[slot].value
        nodes[slot].key = nil
        nodes[slot].value = nil
        nodes[slot].cost = 0
        freeSlots.append(slot)
        return value
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        nodes[slot].previous = Self.none
        nodes[slot].next = head
        if head != Self.none { nodes[head].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = Self.none
        nodes[slot].next = Self.none
    }
}
