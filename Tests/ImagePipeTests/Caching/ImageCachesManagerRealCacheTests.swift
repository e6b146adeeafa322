import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// SDWebImage's caches-manager tests (49–57), with real two-level caches.
@Suite("Caches manager with real caches")
struct ImageCachesManagerRealCacheTests {
    let directory = TemporaryDirectory()
    let coders = ImageCodersManager(coders: [TestCoder(encodesEveryFormat: true)])

    func makeCache(_ namespace: String, willReadDisk: (@Sendable (String) -> Void)? = nil) -> DefaultImageCache {
        let disk = DiskCache(directory: directory.url.appendingPathComponent(namespace), configuration: DiskCache.Configuration(trimInterval: nil))
        return DefaultImageCache(memoryCache: MemoryCache(costLimit: 1 << 20, shardCount: 1), diskCache: disk, coders: coders, willReadDisk: willReadDisk)
    }

    @Test("One cache behind the manager: store, query without promotion, contains, remove disk only, clear")
    func singleCache() async throws {
        let cache = makeCache("one")
        let manager = ImageCachesManager(caches: [cache])
        await manager.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(await manager.contains(key: "k", cacheType: .all) == .memory)
        await manager.remove(key: "k", cacheType: .memory)
        var diskOnly = ImageContext()
        diskOnly[.storeCacheType] = .disk
        #expect(await manager.query(key: "k", options: [], context: diskOnly, cacheType: .all)?.cacheType == .disk)
        #expect(cache.memoryCache.value(forKey: "k") == nil, "storeCacheType .disk must not promote to memory")
        await manager.remove(key: "k", cacheType: .disk)
        #expect(await manager.contains(key: "k", cacheType: .all) == ImageCacheType.none)
        await manager.store(TestImages.still(), data: nil, key: "k2", options: [], context: ImageContext(), cacheType: .all)
        await manager.clear(.all)
        #expect(await manager.contains(key: "k2", cacheType: .all) == ImageCacheType.none)
        #expect(await cache.totalDiskCount() == 0)
    }

    @Test("Highest-only stores in the last cache, lowest-only in the first")
    func highestAndLowestOnly() async {
        let low = makeCache("low"), high = makeCache("high")
        let manager = ImageCachesManager(caches: [low, high])
        await manager.store(TestImages.still(), data: nil, key: "h", options: [], context: ImageContext(), cacheType: .memory)
        #expect(high.memoryCache.contains("h"))
        #expect(!low.memoryCache.contains("h"))
        manager.policies.store = .lowestOnly
        await manager.store(TestImages.still(), data: nil, key: "l", options: [], context: ImageContext(), cacheType: .memory)
        #expect(low.memoryCache.contains("l"))
        #expect(!high.memoryCache.contains("l"))
        manager.policies.query = .lowestOnly
        #expect(await manager.query(key: "h", options: [], context: ImageContext(), cacheType: .all) == nil)
        manager.policies.query = .highestOnly
        #expect(await manager.query(key: "h", options: [], context: ImageContext(), cacheType: .all)?.cacheType == .memory)
    }

    @Test("Concurrent query: the fastest hit wins (memory, while the other cache's disk read is held)")
    func concurrentFastestWins() async throws {
        let gate = BlockingGate()
        let memoryHolder = makeCache("memory")
        let diskHolder = makeCache("disk") { _ in gate.wait() }
        await memoryHolder.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .memory)
        await diskHolder.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        var policies = ImageCachesManager.Policies()
        policies.query = .concurrent
        let manager = ImageCachesManager(caches: [memoryHolder, diskHolder], policies: policies)
        let hit = await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(hit?.cacheType == .memory)
        gate.open()
    }

    @Test("Serial query: the highest-priority cache answers first, even from disk")
    func serialHighestFirst() async throws {
        let memoryHolder = makeCache("memory"), diskHolder = makeCache("disk")
        await memoryHolder.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .memory)
        await diskHolder.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        let manager = ImageCachesManager(caches: [memoryHolder, diskHolder])
        #expect(await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all)?.cacheType == .disk)
        #expect(await manager.contains(key: "k", cacheType: .disk) == .disk)
        #expect(await manager.query(key: "absent", options: [], context: ImageContext(), cacheType: .all) == nil)
    }

    @Test("Remove and clear visit every cache")
    func removeAndClearAll() async {
        let a = makeCache("a"), b = makeCache("b")
        let manager = ImageCachesManager(caches: [a, b])
        for cache in [a, b] {
            await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
            await cache.store(TestImages.still(), data: nil, key: "j", options: [], context: ImageContext(), cacheType: .all)
        }
        await manager.remove(key: "k", cacheType: .all)
        #expect(await a.contains(key: "k", cacheType: .all) == ImageCacheType.none)
        #expect(await b.contains(key: "k", cacheType: .all) == ImageCacheType.none)
        await manager.clear(.all)
        #expect(await a.contains(key: "j", cacheType: .all) == ImageCacheType.none)
        #expect(await b.contains(key: "j", cacheType: .all) == ImageCacheType.none)
    }
}
