import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// SDWebImage's weak memory cache (`shouldUseWeakMemoryCache`): images that left the LRU but are
/// still held elsewhere come back on their next lookup.
@Suite("Memory cache: weak table")
struct MemoryCacheWeakTests {
    /// One shard holding one entry, weak table on.
    func weakCache(count: Int = 1) -> MemoryCache<String, Image> {
        let cache = MemoryCache<String, Image>(costLimit: 1 << 20, countLimit: count, entryCostLimitRatio: 1, shardCount: 1)
        cache.usesWeakCache = true
        return cache
    }

    /// An image whose content box is the cache's only hold on it once the caller lets go.
    func image(_ width: Int = 4) -> Image { Image(TestImages.buffer(width, 3), format: .png, orientation: .right, scale: 2) }

    @Test("Off by default, as SDWebImage since 5.12: an evicted image is a miss even while held")
    func offByDefault() {
        let cache = MemoryCache<String, Image>(costLimit: 1 << 20, countLimit: 1, shardCount: 1)
        #expect(!cache.usesWeakCache)
        let held = image()
        cache.set(held, forKey: "a", cost: 36)
        cache.set(image(), forKey: "b", cost: 36)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.weakTableCount == 0)
        withExtendedLifetime(held) {}
    }

    @Test("An evicted image still held elsewhere comes back: the same pixels and fields, put back with its cost")
    func evictedImageStillHeldComesBack() throws {
        let cache = weakCache()
        let held = image()
        cache.set(held, forKey: "a", cost: 36)
        cache.set(image(5), forKey: "b", cost: 45)  // evicts a
        #expect(cache.keysByRecency == ["b"])
        let back = try #require(cache.value(forKey: "a"))
        #expect(back.box === held.box)
        #expect(back.format == .png && back.orientation == .right && back.scale == 2)
        #expect(cache.keysByRecency == ["a"], "put back as the most recently used entry, evicting b")
        #expect(cache.totalCost == 36)
    }

    @Test("An evicted image nobody holds is gone, and its weak entry with it")
    func evictedImageNobodyHoldsIsGone() {
        let cache = weakCache()
        cache.set(image(), forKey: "a", cost: 36)
        cache.set(image(), forKey: "b", cost: 36)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.weakTableCount == 1, "only b's entry is left")
    }

    @Test("A critical purge empties the LRU but keeps the weak table; removeAll and removeValue empty both")
    func purgeKeepsWeakTable() throws {
        let cache = weakCache(count: 10)
        let held = image(), alsoHeld = image()
        cache.set(held, forKey: "held", cost: 36)
        cache.set(image(), forKey: "dropped", cost: 36)
        cache.set(alsoHeld, forKey: "removed", cost: 36)
        cache.purge(level: .critical)
        #expect(cache.totalCount == 0)
        #expect(cache.totalCost == 0)
        #expect(try #require(cache.value(forKey: "held")).box === held.box)
        #expect(cache.value(forKey: "dropped") == nil)
        cache.removeValue(forKey: "removed")
        #expect(cache.value(forKey: "removed") == nil)
        cache.removeAll()
        #expect(cache.value(forKey: "held") == nil)
        #expect(cache.weakTableCount == 0)
        withExtendedLifetime((held, alsoHeld)) {}
    }

    @Test("An expired entry does not come back from the weak table")
    func expiredDoesNotComeBack() {
        let clock = TestClock()
        let cache = MemoryCache<String, Image>(costLimit: 1 << 20, countLimit: 1, entryCostLimitRatio: 1, timeToLive: 10, shardCount: 1, clock: clock.cacheClock)
        cache.usesWeakCache = true
        let held = image()
        cache.set(held, forKey: "a", cost: 36)
        cache.set(image(), forKey: "b", cost: 36)
        clock.advance(by: 11)
        #expect(cache.value(forKey: "a") == nil)
        withExtendedLifetime(held) {}
    }

    @Test("Turning the weak cache off empties its table")
    func turningOffEmpties() {
        let cache = weakCache()
        let held = image()
        cache.set(held, forKey: "a", cost: 36)
        cache.set(image(), forKey: "b", cost: 36)
        cache.usesWeakCache = false
        #expect(cache.weakTableCount == 0)
        #expect(cache.value(forKey: "a") == nil)
        withExtendedLifetime(held) {}
    }

    @Test("Dead weak entries are swept as stores go on: the table stays near the live count")
    func deadEntriesAreSwept() {
        let cache = weakCache(count: 8)
        for i in 0..<10_000 { cache.set(image(), forKey: "k\(i)", cost: 36) }
        #expect(cache.weakTableCount <= 2 * 8 + 64)
    }

    @Test("Through the manager: a purged image a caller still holds answers the synchronous memory hit, with no request")
    func managerSeesWeakTable() async throws {
        let directory = TemporaryDirectory()
        let memory = MemoryCache<String, Image>(costLimit: 1 << 20)
        memory.usesWeakCache = true
        let cache = DefaultImageCache(namespace: "weak", directory: directory.url, memoryCache: memory)
        let manager = ImageManager(cache: ImageCachesManager(caches: [cache]), loader: ImageLoadersManager(loaders: []))
        let url = URL(string: "test://img/held.png")!
        let held = image()
        await cache.store(held, data: nil, key: manager.cacheKey(for: url), options: [], context: ImageContext(), cacheType: .memory)
        memory.purge(level: .critical)
        let result = try await manager.loadImage(with: url, options: [.fromCacheOnly])
        #expect(result.cacheType == .memory)
        #expect(result.image?.box === held.box)
    }
}

@Suite("Memory cache: limits at run time and purges")
struct MemoryCacheLimitsTests {
    @Test("Lowering the cost or count limit evicts the least recently used entries at once")
    func loweringLimitsEvicts() {
        let cache = MemoryCache<String, Int>(costLimit: 1000, entryCostLimitRatio: 0.5, shardCount: 1)
        for i in 0..<10 { cache.set(i, forKey: "k\(i)", cost: 10) }
        cache.costLimit = 55
        #expect(cache.totalCost == 50)
        #expect(cache.keysByRecency == ["k9", "k8", "k7", "k6", "k5"])
        #expect(cache.entryCostLimit == 27)
        cache.countLimit = 2
        #expect(cache.keysByRecency == ["k9", "k8"])
        cache.set(99, forKey: "big", cost: 28)
        #expect(cache.value(forKey: "big") == nil, "the entry cost limit follows the cost limit")
        cache.costLimit = 1000
        cache.countLimit = 100
        for i in 0..<10 { cache.set(i, forKey: "k\(i)", cost: 10) }
        #expect(cache.totalCount == 10, "raised limits hold more again")
    }

    @Test("In a sharded cache the shards' shares add up to a lowered limit")
    func shardedLimitsAddUp() {
        let cache = MemoryCache<String, Int>(costLimit: 100_000, countLimit: 4_096, entryCostLimitRatio: 0.01, shardCount: 8)
        #expect(cache.shardCount == 8)
        for i in 0..<4_000 { cache.set(i, forKey: "https://example.com/\(i).jpg", cost: 3) }
        cache.countLimit = 13
        #expect(cache.totalCount <= 13)
        cache.countLimit = 4_096
        cache.costLimit = 301
        #expect(cache.totalCost <= 301)
        for i in 0..<4_000 { cache.set(i, forKey: "https://example.com/\(i).jpg", cost: 3) }
        #expect(cache.totalCost <= 301)
        #expect(cache.totalCost >= 240, "every shard fills to its share")
    }

    @Test("A moderate purge keeps the most recently used half; a critical one empties the cache")
    func purgeLevels() {
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 10, entryCostLimitRatio: 1, shardCount: 1)
        for i in 0..<10 { cache.set(i, forKey: "k\(i)", cost: 10) }
        cache.purge(level: .moderate)
        #expect(cache.keysByRecency == ["k9", "k8", "k7", "k6", "k5"])
        cache.purge(level: .critical)
        #expect(cache.totalCount == 0)
        cache.set(1, forKey: "after", cost: 10)
        #expect(cache.value(forKey: "after") == 1, "the limits are unchanged by a purge")
        #expect(cache.costLimit == 100)
    }
}
