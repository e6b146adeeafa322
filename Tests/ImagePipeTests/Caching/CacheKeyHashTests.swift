import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Cache key hash")
struct CacheKeyHashTests {
    let hasher = CacheKeyHash()

    @Test("Strings Swift calls equal hash alike: canonically equivalent forms, small and large, built in pieces")
    func equalStringsHashAlike() {
        let pairs: [(String, String)] = [
            ("é", "e\u{301}"),
            ("\u{212A}", "K"),  // Kelvin sign: canonically a capital K
            ("https://cdn.example.com/caf\u{E9}.jpg", "https://cdn.example.com/cafe\u{301}.jpg"),
            ("abc", String("xabc".dropFirst())),
            ("https://cdn.example.com/images/1/photo-1.jpg?w=200", ["https://cdn.example.com", "images/1/photo-1.jpg?w=200"].joined(separator: "/")),
        ]
        for (a, b) in pairs {
            #expect(a == b)
            #expect(hasher.hash(a) == hasher.hash(b), "\(a.debugDescription) vs \(b.debugDescription)")
        }
    }

    @Test("A cache finds a key under any canonically equivalent spelling, and removing one removes the other")
    func cacheUsesSwiftEquality() {
        let cache = MemoryCache<String, Int>(costLimit: 1000, shardCount: 4)
        cache.set(1, forKey: "https://example.com/caf\u{E9}.png")
        #expect(cache.value(forKey: "https://example.com/cafe\u{301}.png") == 1)
        cache.set(2, forKey: "K")
        cache.removeValue(forKey: "\u{212A}")
        #expect(cache.value(forKey: "K") == nil)
        #expect(cache.totalCount == 1)
    }

    @Test("Every length from 0 to 64 bytes hashes each byte: changing any one byte changes the hash")
    func everyByteCounts() {
        for length in 0...64 {
            let base = String(repeating: "a", count: length)
            let h = hasher.hash(base)
            for i in 0..<length {
                var bytes = Array(base.utf8)
                bytes[i] = UInt8(ascii: "b")
                #expect(hasher.hash(String(decoding: bytes, as: UTF8.self)) != h, "length \(length), byte \(i)")
            }
            // A longer string of the same prefix differs too (the length is hashed).
            #expect(hasher.hash(base + "a") != h)
        }
    }

    @Test("10,000 URL keys: no two share a hash, and the low bits (bucket index) spread evenly")
    func spreads() {
        let keys = (0..<10_000).map { "https://cdn.example.com/images/\($0 % 97)/photo-\($0).jpg?w=\(100 + $0 % 7 * 100)&q=80" }
        let hashes = keys.map { hasher.hash($0) }
        #expect(Set(hashes).count == keys.count)
        var buckets = [Int](repeating: 0, count: 64)
        for h in hashes { buckets[h & 63] += 1 }
        // 156 expected per bucket; a fair hash stays well within +-50 % at this sample size.
        #expect(buckets.allSatisfy { $0 > 78 && $0 < 234 }, "\(buckets)")
    }

    @Test("Each cache draws its own seed, so one cache's colliding keys tell nothing about another's")
    func seedsDiffer() {
        let key = "https://cdn.example.com/images/1/photo-1.jpg"
        #expect(CacheKeyHash().hash(key) != CacheKeyHash().hash(key))
    }

    @Test("String keys with the fast hash match a reference LRU model exactly")
    func stringKeysMatchModel() {
        let cache = MemoryCache<String, Int>(costLimit: .max, countLimit: 50, entryCostLimitRatio: 1, shardCount: 1)
        MemoryCacheTests.checkAgainstModel(cache, ids: 150) { "https://example.com/\($0).jpg" }
    }
}
