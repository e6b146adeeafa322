/// One lock stripe of `MemoryCache`: an exact LRU over an open-addressing hash index and a doubly
/// linked list.
///
/// The list's nodes live in an array and link by index, so moving a node to the front writes a few
/// integers instead of retaining and releasing objects. Freed slots are reused through a free list,
/// so storage stops growing once the cache is full. The index is our own (linear probing with
/// backward-shift deletion, hashes stored in the nodes) rather than a `Dictionary`, because the
/// cache has already hashed the key to pick the shard: hashing a URL string again would be a third
/// of the cost of a read. Not thread-safe by itself: `MemoryCache` guards each shard with a lock.
@usableFromInline
struct LRUShard<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var hash: Int
        @usableFromInline var cost: Int
        /// Seconds since the reference date after which the entry is gone; `.infinity` for none.
        @usableFromInline var expiry: Double

        @inlinable
        init(key: Key, value: Value, hash: Int, cost: Int, expiry: Double) {
            self.key = key
            self.value = value
            self.hash = hash
            self.cost = cost
            self.expiry = expiry
        }
    }

    /// A node's neighbours in recency order, kept apart from the nodes: moving an entry to the
    /// front rewrites its neighbours' links, and 8-byte links packed together stay in the CPU's
    /// cache where 64-byte nodes would each cost a miss. (32 bits: a shard never holds 2^31 entries.)
    @usableFromInline
    struct Link {
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32

        @inlinable init() {
            previous = -1
            next = -1
        }
    }

    @inlinable static var none: Int { -1 }

    /// Per bucket, the node's slot in the low 32 bits and the high 32 bits of its key's hash above
    /// them (`none` for an empty bucket); at most half full. The hash bits let a probe skip other
    /// keys' buckets without loading their nodes: a node is another cache miss.
    @usableFromInline var buckets: [Int] = Array(repeating: -1, count: 16)
    @usableFromInline var nodes: [Node] = []
    @usableFromInline var links: [Link] = []
    @usableFromInline var freeSlots: [Int] = []
    /// Most recently used.
    @usableFromInline var head = -1
    /// Least recently used: evicted first.
    @usableFromInline var tail = -1
    @usableFromInline var count = 0

    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    @usableFromInline var totalCost = 0

    @inlinable
    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    // MARK: Operations

    /// The value, made most recently used; nil when absent or expired at `now` (an expired entry is
    /// removed and handed back in `evicted` so its value is released outside the lock).
    @inlinable
    mutating func value(forKey key: Key, hash: Int, clock: CacheClock, evicted: inout Value?) -> Value? {
        guard let slot = find(key, hash: hash) else { return nil }
        if nodes[slot].expiry != .infinity, nodes[slot].expiry <= clock.seconds {
            evicted = remove(slot: slot)
            return nil
        }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Whether a live entry exists, without changing the order.
    @inlinable
    func contains(_ key: Key, hash: Int, clock: CacheClock) -> Bool {
        guard let slot = find(key, hash: hash) else { return false }
        return nodes[slot].expiry == .infinity || nodes[slot].expiry > clock.seconds
    }

    /// Inserts or replaces, then evicts least recently used entries until both limits hold.
    /// Replaced and evicted values go to `evicted` so they are released outside the lock.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, hash: Int, cost: Int, expiry: Double, evicted: inout Evictions<Value>) {
        if let slot = find(key, hash: hash) {
            totalCost += cost - nodes[slot].cost
            if let old = nodes[slot].value { evicted.append(old) }
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].expiry = expiry
            moveToFront(slot)
        } else {
            let node = Node(key: key, value: value, hash: hash, cost: cost, expiry: expiry)
            let slot: Int
            if let reused = freeSlots.popLast() {
                nodes[reused] = node
                slot = reused
            } else {
                nodes.append(node)
                links.append(Link())
                slot = nodes.count - 1
            }
            insertIntoIndex(slot)
            count += 1
            totalCost += cost
            linkAtFront(slot)
        }
        trim(toCost: costLimit, count: countLimit, evicted: &evicted)
    }

    @inlinable
    mutating func removeValue(forKey key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash) else { return nil }
        return remove(slot: slot)
    }

    /// Evicts from the least recently used end until cost ≤ `cost` and count ≤ `count`.
    @inlinable
    mutating func trim(toCost cost: Int, count limit: Int, evicted: inout Evictions<Value>) {
        while tail != Self.none, totalCost > cost || count > limit {
            if let value = remove(slot: tail) { evicted.append(value) }
        }
    }

    /// Removes every entry expired at `now`.
    @inlinable
    mutating func removeExpired(now: Double, evicted: inout Evictions<Value>) {
        var slot = tail
        while slot != Self.none {
            let previous = Int(links[slot].previous)
            if nodes[slot].expiry <= now, let value = remove(slot: slot) { evicted.append(value) }
            slot = previous
        }
    }

    /// Drops everything and the storage with it.
    @inlinable
    mutating func removeAll() -> [Value] {
        let values = nodes.compactMap(\.value)
        self = LRUShard(costLimit: costLimit, countLimit: countLimit)
        return values
    }

    /// Keys from most to least recently used.
    @inlinable
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = head
        while slot != Self.none {
            if let key = nodes[slot].key { keys.append(key) }
            slot = Int(links[slot].next)
        }
        return keys
    }

    // MARK: Index

    /// A bucket's contents for `slot`, whose key hashes to `hash`.
    @inlinable @inline(__always)
    static func entry(slot: Int, hash: Int) -> Int { (hash & ~0xFFFF_FFFF) | slot }

    @inlinable @inline(__always)
    static func slot(of entry: Int) -> Int { entry & 0xFFFF_FFFF }

    @inlinable
    func find(_ key: Key, hash: Int) -> Int? {
        let mask = buckets.count - 1
        let tag = hash & ~0xFFFF_FFFF
        var bucket = hash & mask
        while true {
            let entry = buckets[bucket]
            if entry == Self.none { return nil }
            if entry & ~0xFFFF_FFFF == tag {
                let slot = Self.slot(of: entry)
                if nodes[slot].hash == hash, nodes[slot].key == key { return slot }
            }
            bucket = (bucket + 1) & mask
        }
    }

    @inlinable
    mutating func insertIntoIndex(_ slot: Int) {
        if (count + 1) * 2 > buckets.count { grow() }
        place(slot)
    }

    @inlinable
    mutating func place(_ slot: Int) {
        let mask = buckets.count - 1
        let hash = nodes[slot].hash
        var bucket = hash & mask
        while buckets[bucket] != Self.none { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.entry(slot: slot, hash: hash)
    }

    @inlinable
    mutating func grow() {
        buckets = Array(repeating: Self.none, count: buckets.count * 2)
        var slot = head
        while slot != Self.none {
            place(slot)
            slot = Int(links[slot].next)
        }
    }

    /// Linear probing's backward-shift deletion: later entries of the probe run move back into the
    /// hole, so lookups never meet tombstones and the table needs no rebuilds.
    @inlinable
    mutating func removeFromIndex(_ slot: Int) {
        let mask = buckets.count - 1
        var hole = nodes[slot].hash & mask
        while Self.slot(of: buckets[hole]) != slot { hole = (hole + 1) & mask }
        var probe = hole
        while true {
            probe = (probe + 1) & mask
            let moving = buckets[probe]
            if moving == Self.none { break }
            let home = nodes[Self.slot(of: moving)].hash & mask
            // `moving` may fill the hole when the hole lies between its home bucket and where it is.
            if (probe - home) & mask >= (probe - hole) & mask {
                buckets[hole] = moving
                hole = probe
            }
        }
        buckets[hole] = Self.none
    }

    // MARK: List

    @inlinable
    mutating func remove(slot: Int) -> Value? {
        removeFromIndex(slot)
        unlink(slot)
        count -= 1
        totalCost -= nodes[slot].cost
        let value = nodes[slot].value
        nodes[slot].key = nil
        nodes[slot].value = nil
        nodes[slot].cost = 0
        freeSlots.append(slot)
        return value
    }

    /// Every read calls this, so it relinks through one unsafe view of `links`: each subscript
    /// assignment on the array would check that its storage is unique, an out-of-line call.
    @inlinable
    mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        let oldHead = head
        let wasTail = links.withUnsafeMutableBufferPointer { links -> Int? in
            // `slot` is not the head, so it has a previous node.
            let previous = Int(links[slot].previous), next = Int(links[slot].next)
            links[previous].next = Int32(truncatingIfNeeded: next)
            if next != Self.none { links[next].previous = Int32(truncatingIfNeeded: previous) }
            links[slot].previous = -1
            links[slot].next = Int32(truncatingIfNeeded: oldHead)
            links[oldHead].previous = Int32(truncatingIfNeeded: slot)
            return next == Self.none ? previous : nil
        }
        if let newTail = wasTail { tail = newTail }
        head = slot
    }

    @inlinable
    mutating func linkAtFront(_ slot: Int) {
        links[slot].previous = -1
        links[slot].next = Int32(truncatingIfNeeded: head)
        if head != Self.none { links[head].previous = Int32(truncatingIfNeeded: slot) }
        head = slot
        if tail == Self.none { tail = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let previous = Int(links[slot].previous), next = Int(links[slot].next)
        if previous != Self.none { links[previous].next = Int32(truncatingIfNeeded: next) } else { head = next }
        if next != Self.none { links[next].previous = Int32(truncatingIfNeeded: previous) } else { tail = previous }
        links[slot] = Link()
    }
}

/// Values pushed out under a lock, to be released after it: usually none or one, which needs no
/// allocation; more only when one insert evicts several.
@usableFromInline
struct Evictions<Value> {
    @usableFromInline var first: Value?
    @usableFromInline var rest: [Value] = []

    @inlinable init() {}

    @inlinable
    mutating func append(_ value: Value) {
        if first == nil { first = value } else { rest.append(value) }
    }
}

extension Evictions: Sendable where Value: Sendable {}
