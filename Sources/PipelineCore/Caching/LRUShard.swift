/// One lock stripe of `MemoryCache`: an exact LRU over an open-addressing hash table whose slots
/// are the entries themselves, threaded on a doubly linked list in recency order.
///
/// The shard keeps no limits of its own: `MemoryCache` keeps one cost and count budget for all
/// shards and evicts from whichever shard's least recently used entry is oldest. For that each
/// entry carries the stamp of its last use (`MemoryCache`'s clock), and `tailStamp` is the oldest.
///
/// A lookup loads the entry at the key's home slot and usually finds the key there: one cache miss.
/// (A separate index pointing into a node array costs two, the index and then the node, and those
/// misses were most of a read's time.) Linear probing keeps collisions in neighbouring slots;
/// backward-shift deletion closes holes, so there are no tombstones and no rebuilds, and the
/// entries it moves have their neighbours' links repointed. The table grows when it would be more
/// than three quarters full: growing at half made the tables up to twice as large, for probe runs
/// only a little shorter.
///
/// Each slot has four parts in four tables, so that what an operation touches is packed together:
/// - the `Entry` (key, value, hash: 32 bytes for a string key and an object value), which every
///   lookup reads;
/// - the 8-byte `Link` (list neighbours) and the stamp of its last use, which every use rewrites,
///   its own and its neighbours';
/// - the `Details` (cost, expiry), which only inserts and removals need, and reads of entries that
///   can expire (a bit of the stored hash says which).
/// Against 48-byte entries holding the cost and expiry, in tables at most half full, this layout
/// cut the cache's own L2 misses in the benchmark's replay by 64% (cachegrind modelling a 1 MiB
/// L2). 32-byte records carrying links, stamp, cost and expiry together were tried and were slower.
/// (Links are 32 bits: a shard never holds 2^31 entries.)
///
/// The storage is raw memory rather than arrays: every read relinks, and array subscripts check
/// bounds and storage uniqueness on each assignment. Every slot is always initialised (an empty
/// slot holds nil key and value), so the unsafe code is only about indices, which stay below
/// `capacity` by masking. Not thread-safe by itself: `MemoryCache` guards each shard with a lock.
@usableFromInline
struct LRUShard<Key: Hashable, Value>: ~Copyable {
    @usableFromInline
    struct Entry {
        /// nil for an empty slot.
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        /// The key's hash with its top bit replaced by whether the entry can expire (`expires`): a
        /// read checks the expiry in `details` only then, so most reads never touch that table.
        @usableFromInline var taggedHash: Int

        @inlinable
        init(key: Key?, value: Value?, hash: Int, expires: Bool) {
            self.key = key
            self.value = value
            self.taggedHash = Self.taggedHash(hash, expires: expires)
        }

        @inlinable
        static func taggedHash(_ hash: Int, expires: Bool) -> Int { hash & Int.max | (expires ? Int.min : 0) }

        @inlinable static var empty: Entry { Entry(key: nil, value: nil, hash: 0, expires: false) }

        @inlinable var expires: Bool { taggedHash < 0 }

        /// Whether `hash` could be this entry's (its top bit is not stored).
        @inlinable func matches(hash: Int) -> Bool { (taggedHash ^ hash) & Int.max == 0 }
    }

    /// What reads rarely need: the cost (inserts, removals) and the expiry (only for entries that
    /// expire).
    @usableFromInline
    struct Details {
        @usableFromInline var cost: Int
        /// Seconds since the reference date after which the entry is gone; `.infinity` for none.
        @usableFromInline var expiry: Double

        @inlinable
        init(cost: Int, expiry: Double) {
            self.cost = cost
            self.expiry = expiry
        }

        @inlinable static var empty: Details { Details(cost: 0, expiry: .infinity) }
    }

    /// A slot's neighbours in recency order, by slot index (`none` at either end).
    @usableFromInline
    struct Link {
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32

        @inlinable
        init(previous: Int, next: Int) {
            self.previous = Int32(truncatingIfNeeded: previous)
            self.next = Int32(truncatingIfNeeded: next)
        }

        @inlinable static var empty: Link { Link(previous: none, next: none) }
    }

    @inlinable static var none: Int { -1 }
    @inlinable static var initialCapacity: Int { 16 }

    /// What changed since `MemoryCache` last carried this shard's totals and oldest stamp to its
    /// shared ones.
    @usableFromInline
    struct Unpublished: OptionSet {
        @usableFromInline let rawValue: UInt8
        @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `count` or `totalCost` changed.
        @inlinable static var totals: Unpublished { Unpublished(rawValue: 1) }
        /// The tail moved or was used. Looking at its stamp is a load from a random line, which a
        /// read in the middle of the list has no reason to pay.
        @inlinable static var tail: Unpublished { Unpublished(rawValue: 2) }
    }

    // Every operation touches the fields up to `unpublished`, and nothing after them unless it
    // inserts or removes. Declared first, they share one 64-byte line with the lock in front of
    // them (`MemoryCache` starts each shard on a line), so a read moves one line of shard state
    // between cores rather than two.
    @usableFromInline var entries: UnsafeMutablePointer<Entry>
    @usableFromInline var links: UnsafeMutablePointer<Link>
    /// When each slot's entry was last used, on `MemoryCache`'s clock.
    @usableFromInline var stamps: UnsafeMutablePointer<UInt64>
    @usableFromInline var details: UnsafeMutablePointer<Details>
    /// The capacity less one; the capacity is a power of two.
    @usableFromInline var mask: Int
    @usableFromInline var headSlot: Int32 = -1
    @usableFromInline var tailSlot: Int32 = -1
    @usableFromInline var unpublished: Unpublished = []

    @usableFromInline var count = 0
    @usableFromInline var totalCost = 0
    /// What `MemoryCache`'s shared totals and oldest stamps last heard from this shard.
    @usableFromInline var publishedCount = 0
    @usableFromInline var publishedCost = 0
    @usableFromInline var publishedTailStamp = UInt64.max

    @inlinable var capacity: Int { mask &+ 1 }

    /// Most recently used.
    @inlinable var head: Int {
        get { Int(headSlot) }
        set { headSlot = Int32(truncatingIfNeeded: newValue) }
    }

    /// Least recently used: evicted first.
    @inlinable var tail: Int {
        get { Int(tailSlot) }
        set {
            tailSlot = Int32(truncatingIfNeeded: newValue)
            unpublished.insert(.tail)
        }
    }

    @inlinable
    init() {
        mask = Self.initialCapacity &- 1
        (entries, links, stamps, details) = Self.allocateTable(capacity: Self.initialCapacity)
    }

    deinit {
        entries.deinitialize(count: capacity)
        entries.deallocate()
        links.deallocate()
        stamps.deallocate()
        details.deallocate()
    }

    @inlinable
    static func allocateTable(capacity: Int) -> (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<Link>, UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<Details>) {
        let entries = UnsafeMutablePointer<Entry>.allocateCacheAligned(capacity: capacity)
        entries.initialize(repeating: .empty, count: capacity)
        let links = UnsafeMutablePointer<Link>.allocateCacheAligned(capacity: capacity)
        links.initialize(repeating: .empty, count: capacity)
        let stamps = UnsafeMutablePointer<UInt64>.allocateCacheAligned(capacity: capacity)
        stamps.initialize(repeating: 0, count: capacity)
        let details = UnsafeMutablePointer<Details>.allocateCacheAligned(capacity: capacity)
        details.initialize(repeating: .empty, count: capacity)
        return (entries, links, stamps, details)
    }

    // MARK: Operations

    /// When the least recently used entry was last used; `.max` when the shard is empty.
    @inlinable
    var tailStamp: UInt64 { tail == Self.none ? .max : stamps[tail] }

    /// The value, made most recently used at `stamp`; nil when absent or expired at the clock's
    /// time (an expired entry is removed and handed back in `evicted` so its value is released
    /// outside the lock).
    @inlinable
    mutating func value(forKey key: Key, hash: Int, stamp: UInt64, clock: CacheClock, evicted: inout Value?) -> Value? {
        guard let slot = find(key, hash: hash) else { return nil }
        if entries[slot].expires, details[slot].expiry <= clock.seconds {
            evicted = removeOutOfLine(slot: slot)
            return nil
        }
        moveToFront(slot, stamp: stamp)
        return entries[slot].value
    }

    /// `remove(slot:)` as a call, for paths that rarely remove (a read finding its entry expired):
    /// unlinking and the backward shift are most of a shard's code, and a read almost never needs
    /// them inline.
    @inlinable @inline(never)
    mutating func removeOutOfLine(slot: Int) -> Value? { remove(slot: slot) }

    /// Whether a live entry exists, without changing the order.
    @inlinable
    func contains(_ key: Key, hash: Int, clock: CacheClock) -> Bool {
        guard let slot = find(key, hash: hash) else { return false }
        return !entries[slot].expires || details[slot].expiry > clock.seconds
    }

    /// Inserts or replaces, as most recently used at `stamp`. A replaced value goes to `evicted` so
    /// it is released outside the lock. Limits are `MemoryCache`'s to enforce.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, hash: Int, cost: Int, expiry: Double, stamp: UInt64, evicted: inout Evictions<Value>) {
        if let slot = find(key, hash: hash) {
            if cost != details[slot].cost {
                totalCost += cost - details[slot].cost
                unpublished.insert(.totals)
            }
            if let old = entries[slot].value { evicted.append(old) }
            entries[slot].value = value
            entries[slot].taggedHash = Entry.taggedHash(hash, expires: expiry != .infinity)
            details[slot] = Details(cost: cost, expiry: expiry)
            moveToFront(slot, stamp: stamp)
        } else {
            if (count + 1) * 4 > capacity * 3 { grow() }
            let slot = emptySlot(forHash: hash)
            entries[slot] = Entry(key: key, value: value, hash: hash, expires: expiry != .infinity)
            details[slot] = Details(cost: cost, expiry: expiry)
            stamps[slot] = stamp
            count += 1
            totalCost += cost
            unpublished.insert(.totals)
            linkAtFront(slot, link: Link(previous: Self.none, next: head))
        }
    }

    @inlinable
    mutating func removeValue(forKey key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash) else { return nil }
        return remove(slot: slot)
    }

    /// Removes the least recently used entry, if any, handing its value to `evicted`.
    @inlinable
    mutating func evictLeastRecent(into evicted: inout Evictions<Value>) {
        guard tail != Self.none else { return }
        if let value = remove(slot: tail) { evicted.append(value) }
    }

    /// Removes every entry expired at `now`. They are collected first and removed by key: a removal
    /// moves other entries between slots (backward shift), so slot numbers saved during the walk
    /// would go stale.
    @inlinable
    mutating func removeExpired(now: Double, evicted: inout Evictions<Value>) {
        // The tagged hash serves as the hash: `find` ignores the tag bit.
        var expired: [(key: Key, hash: Int)] = []
        var slot = head
        while slot != Self.none {
            if entries[slot].expires, details[slot].expiry <= now, let key = entries[slot].key {
                expired.append((key, entries[slot].taggedHash))
            }
            slot = Int(links[slot].next)
        }
        for entry in expired {
            if let value = removeValue(forKey: entry.key, hash: entry.hash) { evicted.append(value) }
        }
    }

    /// Drops everything and the storage with it; the values are handed back to be released after
    /// the lock. Not inlinable: replacing `self` runs the shard's deinit, which the compiler
    /// (6.3) crashes trying to inline into client code in release builds.
    @usableFromInline
    mutating func removeAll() -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            if let value = entries[slot].value { values.append(value) }
            slot = Int(links[slot].next)
        }
        let published = (count: publishedCount, cost: publishedCost, tailStamp: publishedTailStamp)
        self = LRUShard()
        (publishedCount, publishedCost, publishedTailStamp) = published
        unpublished = [.totals, .tail]
        return values
    }

    /// Keys from most to least recently used, with the stamps of their last use.
    @inlinable
    var keysByRecency: [(key: Key, stamp: UInt64)] {
        var keys: [(key: Key, stamp: UInt64)] = []
        var slot = head
        while slot != Self.none {
            if let key = entries[slot].key { keys.append((key, stamps[slot])) }
            slot = Int(links[slot].next)
        }
        return keys
    }

    // MARK: Table

    /// Always inlined: every operation starts here, and the optimizer otherwise left it a call.
    @inlinable @inline(__always)
    func find(_ key: Key, hash: Int) -> Int? {
        let mask = self.mask
        var slot = hash & mask
        while true {
            let entry = entries + slot
            guard entry.pointee.key != nil else { return nil }
            if entry.pointee.matches(hash: hash), entry.pointee.key == key { return slot }
            slot = (slot &+ 1) & mask
        }
    }

    /// The first empty slot on `hash`'s probe run; the table is never full.
    @inlinable
    func emptySlot(forHash hash: Int) -> Int {
        let mask = self.mask
        var slot = hash & mask
        while entries[slot].key != nil { slot = (slot &+ 1) & mask }
        return slot
    }

    /// Doubles the table, moving the entries over in recency order.
    @inlinable
    mutating func grow() {
        let old = (entries: entries, links: links, stamps: stamps, details: details, capacity: capacity)
        mask = capacity &* 2 &- 1
        (entries, links, stamps, details) = Self.allocateTable(capacity: capacity)
        let entries = self.entries
        var slot = head, newPrevious = Self.none
        head = Self.none
        tail = Self.none
        while slot != Self.none {
            let next = Int(old.links[slot].next)
            let newSlot = emptySlot(forHash: old.entries[slot].taggedHash)
            swap(&entries[newSlot], &old.entries[slot])
            links[newSlot] = old.links[slot]
            stamps[newSlot] = old.stamps[slot]
            details[newSlot] = old.details[slot]
            links[newSlot].previous = Int32(truncatingIfNeeded: newPrevious)
            links[newSlot].next = Int32(truncatingIfNeeded: Self.none)
            if newPrevious != Self.none { links[newPrevious].next = Int32(truncatingIfNeeded: newSlot) } else { head = newSlot }
            newPrevious = newSlot
            slot = next
        }
        tail = newPrevious
        // Every old slot now holds an empty entry, so deinitialising releases nothing.
        old.entries.deinitialize(count: old.capacity)
        old.entries.deallocate()
        old.links.deallocate()
        old.stamps.deallocate()
        old.details.deallocate()
    }

    /// Closes the hole an emptied `slot` leaves, by linear probing's backward shift: later entries
    /// of the probe run move back into it when that keeps them on their run, so lookups never meet
    /// a gap.
    @inlinable
    mutating func closeHole(at slot: Int) {
        let mask = self.mask, entries = self.entries
        var hole = slot, probe = slot
        while true {
            probe = (probe &+ 1) & mask
            guard entries[probe].key != nil else { break }
            let home = entries[probe].taggedHash & mask
            // The entry may fill the hole when the hole lies between its home slot and where it is.
            if (probe &- home) & mask >= (probe &- hole) & mask {
                swap(&entries[hole], &entries[probe])
                details[hole] = details[probe]
                relocateLinks(from: probe, to: hole)
                hole = probe
            }
        }
    }

    /// The entry in `from` moved to `to`: its links and stamp move with it and its neighbours
    /// point at `to`.
    @inlinable
    mutating func relocateLinks(from: Int, to: Int) {
        let link = links[from]
        links[to] = link
        stamps[to] = stamps[from]
        let previous = Int(link.previous), next = Int(link.next)
        if previous != Self.none { links[previous].next = Int32(truncatingIfNeeded: to) } else { head = to }
        if next != Self.none { links[next].previous = Int32(truncatingIfNeeded: to) } else { tail = to }
    }

    // MARK: List

    /// Removes the entry in `slot`; its value is returned so the caller releases it after the lock.
    @inlinable
    mutating func remove(slot: Int) -> Value? {
        totalCost -= details[slot].cost
        unpublished.insert(.totals)
        unlink(slot)
        var removed = Entry.empty
        swap(&removed, &entries[slot])
        count -= 1
        closeHole(at: slot)
        return removed.value
    }

    /// Every read calls this: the stamp and the four link writes of relinking `slot` at the head.
    /// Always inlined, as it is a few instructions that a call would double.
    @inlinable @inline(__always)
    mutating func moveToFront(_ slot: Int, stamp: UInt64) {
        stamps[slot] = stamp
        guard slot != head else {
            if slot == tail { unpublished.insert(.tail) }
            return
        }
        // `slot` is not the head, so it has a previous entry.
        let previous = Int(links[slot].previous), next = Int(links[slot].next)
        links[previous].next = Int32(truncatingIfNeeded: next)
        if next != Self.none { links[next].previous = Int32(truncatingIfNeeded: previous) } else { tail = previous }
        links[slot].previous = Int32(truncatingIfNeeded: Self.none)
        links[slot].next = Int32(truncatingIfNeeded: head)
        links[head].previous = Int32(truncatingIfNeeded: slot)
        head = slot
    }

    /// Puts `link` (whose `next` is the current head) in `slot` and makes it the head.
    @inlinable
    mutating func linkAtFront(_ slot: Int, link: Link) {
        links[slot] = link
        if head != Self.none { links[head].previous = Int32(truncatingIfNeeded: slot) }
        head = slot
        if tail == Self.none { tail = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let previous = Int(links[slot].previous), next = Int(links[slot].next)
        if previous != Self.none { links[previous].next = Int32(truncatingIfNeeded: next) } else { head = next }
        if next != Self.none { links[next].previous = Int32(truncatingIfNeeded: previous) } else { tail = previous }
        links[slot] = .empty
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
