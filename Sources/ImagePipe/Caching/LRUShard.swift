/// One lock stripe of `MemoryCache`: an exact LRU cache over its own share of the limits.
///
/// The entries live in one open-addressing table (linear probing), each slot threaded on a doubly
/// linked list in recency order by slot index. A lookup usually finds its key in the slot the hash
/// points at, so it touches one slot; a use relinks that slot to the newest end. The links are a
/// table of their own, 8 bytes a slot, so that relinking touches a few neighbouring words rather
/// than three whole entries. A removal closes its hole by backward shift (no tombstones),
/// repointing the neighbours of each entry it moves. The tables double when they would be more
/// than three quarters full.
///
/// With the weak memory cache on, every value stored is also kept in `weakValues`, weakly: a miss
/// whose value is still alive elsewhere puts it back (`revive`), and a purge leaves the table be.
///
/// Not thread-safe by itself: `MemoryCache` keeps each shard behind its own `Mutex`.
import PipelineCore

@usableFromInline
struct LRUShard<Key: Hashable, Value> {
    @usableFromInline
    struct Slot {
        /// nil for an empty slot.
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var hash: Int
        @usableFromInline var cost: Int
        /// Seconds since the reference date after which the entry is gone; `.infinity` for never.
        @usableFromInline var expiry: Double

        @inlinable
        init(key: Key?, value: Value?, hash: Int, cost: Int, expiry: Double) {
            self.key = key
            self.value = value
            self.hash = hash
            self.cost = cost
            self.expiry = expiry
        }

        @inlinable static var empty: Slot { Slot(key: nil, value: nil, hash: 0, cost: 0, expiry: .infinity) }
    }

    /// A slot's neighbours in recency order, by slot index (`none` at either end). 32 bits: a
    /// shard never holds 2^31 entries.
    @usableFromInline
    struct Link {
        @usableFromInline var newerSlot: Int32 = -1
        @usableFromInline var olderSlot: Int32 = -1

        @inlinable init() {}

        @inlinable var newer: Int {
            get { Int(newerSlot) }
            set { newerSlot = Int32(truncatingIfNeeded: newValue) }
        }

        @inlinable var older: Int {
            get { Int(olderSlot) }
            set { olderSlot = Int32(truncatingIfNeeded: newValue) }
        }
    }

    @inlinable static var none: Int { -1 }

    @usableFromInline var slots: [Slot]
    /// `links[i]` belongs to `slots[i]`.
    @usableFromInline var links: [Link]
    /// Most recently used; `none` when empty.
    @usableFromInline var newest = Self.none
    /// Least recently used, evicted first; `none` when empty.
    @usableFromInline var oldest = Self.none
    @usableFromInline var count = 0
    @usableFromInline var totalCost = 0
    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    /// Every value stored while the weak memory cache is on, held weakly; pruned of dead entries
    /// when it reaches `weakSweepCount`, which is then set to twice what is left (amortised O(1)).
    @usableFromInline var weakValues: [Key: WeakEntry<Value>] = [:]
    @usableFromInline var weakSweepCount = 64

    @inlinable
    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        // One empty slot: the table doubles as entries come, and unused shards stay small.
        slots = [.empty]
        links = [Link()]
    }

    @inlinable var mask: Int { slots.count &- 1 }

    // MARK: Operations

    /// What a lookup found: the value, nothing, or an entry expired by then (removed; its value
    /// comes back to be released after the lock). An answer of its own rather than an `inout`
    /// value beside the result, so a hit carries nothing else to release.
    @usableFromInline
    enum Lookup {
        case hit(Value)
        case miss
        case expired(Value?)
    }

    /// The value, made most recently used; an entry expired by `clock` is removed instead.
    @inlinable
    mutating func value(forKey key: Key, hash: Int, clock: CacheClock) -> Lookup {
        guard let slot = find(key, hash: hash), let value = slots[slot].value else { return .miss }
        if slots[slot].expiry != .infinity, slots[slot].expiry <= clock.seconds {
            if !weakValues.isEmpty { weakValues[key] = nil }
            return .expired(remove(slot: slot))
        }
        moveToNewest(slot)
        return .hit(value)
    }

    /// Whether a live entry exists, without changing the order.
    @inlinable
    func contains(_ key: Key, hash: Int, clock: CacheClock) -> Bool {
        guard let slot = find(key, hash: hash) else { return false }
        return slots[slot].expiry == .infinity || slots[slot].expiry > clock.seconds
    }

    /// The value of a miss found alive in the weak table, put back as the most recently used
    /// entry with the cost and expiry it was stored with; nil (and the weak entry dropped) when it
    /// is gone, expired at `now`, or now above `entryCostLimit`.
    @inlinable
    mutating func revive(_ key: Key, hash: Int, now: () -> Double, entryCostLimit: Int, evicted: inout Evictions<Value>) -> Value? {
        guard let entry = weakValues[key] else { return nil }
        guard entry.cost <= entryCostLimit, entry.expiry == .infinity || entry.expiry > now(), let value = entry.reference.value else {
            weakValues[key] = nil
            return nil
        }
        set(value, forKey: key, hash: hash, cost: entry.cost, expiry: entry.expiry, evicted: &evicted)
        return value
    }

    /// Makes `entry` the key's weak table entry, sweeping out dead entries first when the table
    /// has grown to `weakSweepCount`.
    @usableFromInline
    mutating func keepWeakly(_ entry: WeakEntry<Value>, forKey key: Key) {
        if weakValues.count >= weakSweepCount {
            weakValues = weakValues.filter { $0.value.reference.isAlive }
            weakSweepCount = max(weakValues.count * 2, 64)
        }
        weakValues[key] = entry
    }

    /// Inserts or replaces as the most recently used entry, then evicts the least recently used
    /// ones while the shard is over its limits. Replaced and evicted values go to `evicted`, to be
    /// released after the lock.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, hash: Int, cost: Int, expiry: Double, evicted: inout Evictions<Value>) {
        if let slot = find(key, hash: hash) {
            totalCost += cost - slots[slot].cost
            // Taken out rather than copied: no retain and release of the old value under the lock.
            if let old = slots[slot].value.take() { evicted.append(old) }
            slots[slot].value = value
            slots[slot].cost = cost
            slots[slot].expiry = expiry
            moveToNewest(slot)
        } else {
            if (count + 1) * 4 > slots.count * 3 { grow() }
            let slot = emptySlot(forHash: hash)
            slots[slot] = Slot(key: key, value: value, hash: hash, cost: cost, expiry: expiry)
            count += 1
            totalCost += cost
            linkAsNewest(slot)
        }
        if count > countLimit || totalCost > costLimit { evict(untilCost: costLimit, count: countLimit, into: &evicted) }
    }

    /// Removes the entry and its weak table entry.
    @inlinable
    mutating func removeValue(forKey key: Key, hash: Int) -> Value? {
        if !weakValues.isEmpty { weakValues[key] = nil }
        guard let slot = find(key, hash: hash) else { return nil }
        return remove(slot: slot)
    }

    /// Sets the limits and evicts at once down to them.
    @inlinable
    mutating func setLimits(cost: Int, count: Int, evicted: inout Evictions<Value>) {
        costLimit = cost
        countLimit = count
        evict(untilCost: cost, count: count, into: &evicted)
    }

    /// Evicts least recently used entries until the shard is within `cost` and `count`.
    @inlinable
    mutating func evict(untilCost cost: Int, count: Int, into evicted: inout Evictions<Value>) {
        while self.count > count || totalCost > cost, oldest != Self.none {
            if let value = remove(slot: oldest) { evicted.append(value) }
        }
    }

    /// Removes every entry expired at `now`. They are collected first and removed by key: a removal
    /// moves other entries between slots, so slot numbers saved during the walk would go stale.
    @inlinable
    mutating func removeExpired(now: Double, evicted: inout Evictions<Value>) {
        var expired: [(key: Key, hash: Int)] = []
        var slot = newest
        while slot != Self.none {
            if slots[slot].expiry <= now, let key = slots[slot].key { expired.append((key, slots[slot].hash)) }
            slot = links[slot].older
        }
        for entry in expired {
            if let value = removeValue(forKey: entry.key, hash: entry.hash) { evicted.append(value) }
        }
        if !weakValues.isEmpty { weakValues = weakValues.filter { $0.value.expiry > now && $0.value.reference.isAlive } }
    }

    /// Empties the shard; the values are handed back to be released after the lock. A purge keeps
    /// the weak table (what is still in use elsewhere can come back); a clear empties it too.
    @inlinable
    mutating func removeAll(keepingWeakValues: Bool) -> [Value] {
        let values = slots.compactMap(\.value)
        var emptied = LRUShard(costLimit: costLimit, countLimit: countLimit)
        if keepingWeakValues { swap(&emptied.weakValues, &weakValues) }
        self = emptied
        return values
    }

    /// Keys from most to least recently used.
    @inlinable
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot != Self.none {
            if let key = slots[slot].key { keys.append(key) }
            slot = links[slot].older
        }
        return keys
    }

    // MARK: Table

    /// Always inlined: every operation starts here.
    @inlinable @inline(__always)
    func find(_ key: Key, hash: Int) -> Int? {
        let mask = self.mask
        var slot = hash & mask
        while true {
            guard let candidate = slots[slot].key else { return nil }
            if slots[slot].hash == hash, candidate == key { return slot }
            slot = (slot &+ 1) & mask
        }
    }

    /// The first empty slot on `hash`'s probe run; the table is never full.
    @inlinable
    func emptySlot(forHash hash: Int) -> Int {
        let mask = self.mask
        var slot = hash & mask
        while slots[slot].key != nil { slot = (slot &+ 1) & mask }
        return slot
    }

    /// Doubles the table, moving the entries over from newest to oldest.
    @inlinable
    mutating func grow() {
        var old = (slots: Array(repeating: Slot.empty, count: slots.count * 2), links: Array(repeating: Link(), count: slots.count * 2))
        swap(&old.slots, &slots)
        swap(&old.links, &links)
        var slot = newest
        newest = Self.none
        oldest = Self.none
        while slot != Self.none {
            let moved = emptySlot(forHash: old.slots[slot].hash)
            slots[moved] = old.slots[slot]
            linkAsOldest(moved)
            slot = old.links[slot].older
        }
    }

    /// Removes the entry in `slot`, returning its value for the caller to release after the lock.
    @inlinable
    mutating func remove(slot: Int) -> Value? {
        unlink(slot)
        let removed = slots[slot]
        slots[slot] = .empty
        count -= 1
        totalCost -= removed.cost
        closeHole(at: slot)
        return removed.value
    }

    /// Linear probing's backward shift: later entries of the probe run move back into the emptied
    /// `slot` when that keeps them on their run, so lookups never meet a gap.
    @inlinable
    mutating func closeHole(at slot: Int) {
        let mask = self.mask
        var hole = slot, probe = slot
        while true {
            probe = (probe &+ 1) & mask
            guard slots[probe].key != nil else { return }
            let home = slots[probe].hash & mask
            // The entry may fill the hole when the hole lies between its home slot and where it is.
            if (probe &- home) & mask >= (probe &- hole) & mask {
                move(from: probe, to: hole)
                hole = probe
            }
        }
    }

    /// Moves the entry in `from` to the empty slot `to` and points its neighbours at `to`.
    @inlinable
    mutating func move(from: Int, to: Int) {
        slots[to] = slots[from]
        slots[from] = .empty
        links[to] = links[from]
        links[from] = Link()
        let newer = links[to].newer, older = links[to].older
        if newer != Self.none { links[newer].older = to } else { newest = to }
        if older != Self.none { links[older].newer = to } else { oldest = to }
    }

    // MARK: Recency list

    /// Always inlined: every hit does it, in a few instructions that a call would double.
    @inlinable @inline(__always)
    mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        let head = newest
        var tail = oldest
        // Through one span: the array's uniqueness is checked once, not at every write.
        do {
            var links = self.links.mutableSpan
            // Not the newest, so there is a newer entry.
            let newer = links[slot].newer, older = links[slot].older
            links[newer].older = older
            if older != Self.none { links[older].newer = newer } else { tail = newer }
            links[slot].newer = Self.none
            links[slot].older = head
            links[head].newer = slot
        }
        oldest = tail
        newest = slot
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        links[slot].newer = Self.none
        links[slot].older = newest
        if newest != Self.none { links[newest].newer = slot } else { oldest = slot }
        newest = slot
    }

    @inlinable
    mutating func linkAsOldest(_ slot: Int) {
        links[slot].older = Self.none
        links[slot].newer = oldest
        if oldest != Self.none { links[oldest].older = slot } else { newest = slot }
        oldest = slot
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let newer = links[slot].newer, older = links[slot].older
        if newer != Self.none { links[newer].older = older } else { newest = older }
        if older != Self.none { links[older].newer = newer } else { oldest = newer }
    }
}

/// Values pushed out under a lock, to be released after it: usually none or one, which needs no
/// allocation; more only when one insert evicts several.
@usableFromInline
struct Evictions<Value> {
    @usableFromInline var first: Value?
    /// nil rather than empty: an empty array is still a reference to release.
    @usableFromInline var rest: [Value]?

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func append(_ value: consuming Value) {
        if first == nil {
            first = value
        } else {
            appendToRest(value)
        }
    }

    /// Out of line: only an insert that evicts several entries comes here.
    @inlinable @inline(never)
    mutating func appendToRest(_ value: consuming Value) {
        if rest == nil { rest = [] }
        rest!.append(value)
    }
}

extension Evictions: Sendable where Value: Sendable {}
