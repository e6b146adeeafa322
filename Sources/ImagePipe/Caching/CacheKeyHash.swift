import Foundation
import PipelineCore

/// The hash `MemoryCache` files a key under.
///
/// String keys (URLs, cache keys: nearly every real key) are hashed over their UTF-8 bytes with a
/// folded-multiply hash, 16 bytes per step, keyed with a random seed drawn for each cache: several
/// times cheaper than Swift's own `hashValue` (SipHash-1-3), which would be a large part of a
/// cache read's cost for an 80-byte URL.
///
/// The trade-off is hash flooding. SipHash is designed so that nobody can make keys collide; a
/// folded multiply with a secret seed (the construction of wyhash and of Rust's foldhash, which
/// hashbrown uses by default) makes it impractical for someone who cannot see the seed, but
/// does not prove it. The damage is also bounded here: a shard's index is limited by the cache's
/// count and cost limits, and entries are images of kilobytes, so a shard holds thousands of keys,
/// not millions. Other key types keep `hashValue`.
///
/// Equal strings must hash alike, and Swift's `==` is canonical equivalence: `"e\u{301}" == "é"`,
/// even `"\u{212A}" == "K"` (Kelvin sign). ASCII text is its own normal form, so ASCII bytes are
/// hashed as they are; any other string is hashed in its NFC form, which is what `==` compares.
@usableFromInline
struct CacheKeyHash: Sendable {
    /// Random, so which keys collide cannot be worked out ahead of time. Held by each cache rather
    /// than in one lazily initialised global, whose every read is a `swift_once` call.
    @usableFromInline let seed: (UInt64, UInt64, UInt64)

    @usableFromInline
    init() {
        var generator = SystemRandomNumberGenerator()
        seed = (generator.next() | 1, generator.next() | 1, generator.next())
    }

    /// Always inlined, with `hash(bytes:)`: every cache operation starts here, and as calls they
    /// would save and restore registers around a loop of a few instructions.
    @inlinable @inline(__always)
    func hash<Key: Hashable>(_ key: Key) -> Int {
        // Specialised for `Key == String` this cast costs nothing; for other keys it folds away.
        guard let string = key as? String else { return key.hashValue }
        if let ascii = string.utf8.withContiguousStorageIfAvailable(asciiHash(bytes:)), let hash = ascii { return hash }
        return canonicalHash(string)
    }

    /// Not ASCII (or not contiguous): the hash of the canonical form `==` compares. Out of line, as
    /// the rare path.
    @usableFromInline
    func canonicalHash(_ string: String) -> Int {
        var normal = string.precomposedStringWithCanonicalMapping
        return normal.withUTF8 { hash(bytes: $0).hash }
    }

    /// The hash of ASCII bytes; nil when a byte is not ASCII.
    @inlinable @inline(__always)
    func asciiHash(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let (hash, bits) = hash(bytes: bytes)
        return bits & 0x8080_8080_8080_8080 == 0 ? hash : nil
    }

    /// The full 128-bit product of `a` and `b`, its halves xored: every input bit reaches the
    /// result through the multiply, which is what makes one step mix as much as several rounds.
    @inlinable @inline(__always)
    func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    /// The hash, and every word hashed or-ed together: whether any byte had its high bit set
    /// (not ASCII) is then one test, without a second pass over the bytes.
    ///
    /// The loads are unchecked; every one stays inside `bytes`: the loop reads 16 bytes while more
    /// than 16 remain, and the tail reads a word from each end of the last 1...16 bytes
    /// (`CacheKeyHashTests.everyByteCounts` covers every tail length).
    @inlinable @inline(__always)
    func hash(bytes: UnsafeBufferPointer<UInt8>) -> (hash: Int, bits: UInt64) {
        let (k0, k1, k2) = seed
        var h = k2 ^ UInt64(truncatingIfNeeded: bytes.count)
        guard let base = bytes.baseAddress else { return (Int(truncatingIfNeeded: fold(h ^ k0, k1)), 0) }
        var bits: UInt64 = 0
        let raw = UnsafeRawPointer(base)
        var offset = 0, remaining = bytes.count
        while remaining > 16 {
            let a = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let b = raw.loadUnaligned(fromByteOffset: offset &+ 8, as: UInt64.self)
            h = fold(a ^ k0, b ^ h ^ k1)
            bits |= a | b
            offset &+= 16
            remaining &-= 16
        }
        // The last 1...16 bytes as two words, overlapping bytes already hashed when there are
        // more than 8 (the length is in `h`, so overlaps cannot make two keys agree).
        let a: UInt64, b: UInt64
        if remaining >= 8 {
            a = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            b = raw.loadUnaligned(fromByteOffset: offset &+ remaining &- 8, as: UInt64.self)
        } else if remaining >= 4 {
            a = UInt64(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            b = UInt64(raw.loadUnaligned(fromByteOffset: offset &+ remaining &- 4, as: UInt32.self))
        } else if remaining > 0 {
            // 1...3 bytes: first, middle and last (some the same byte), as wyhash does.
            a = UInt64(base[offset]) << 16 | UInt64(base[offset &+ remaining / 2]) << 8 | UInt64(base[offset &+ remaining &- 1])
            b = 0
        } else {
            a = 0
            b = 0
        }
        h = fold(a ^ k0, b ^ h ^ k1)
        bits |= a | b
        return (Int(truncatingIfNeeded: fold(h ^ k1, k0 ^ UInt64(truncatingIfNeeded: bytes.count))), bits)
    }
}
