import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Caches manager policies")
struct ImageCachesManagerTests {
    func image() throws -> Image { Image(try PixelBuffer(width: 2, height: 2, format: .rgb8)) }

    /// lowest → highest priority: "low", "high".
    func make(_ policies: ImageCachesManager.Policies = .init(), highDelay: Duration = .zero) -> (ImageCachesManager, InMemoryImageCache, InMemoryImageCache) {
        let low = InMemoryImageCache(name: "low")
        let high = InMemoryImageCache(name: "high", delay: highDelay)
        return (ImageCachesManager(caches: [low, high], policies: policies), low, high)
    }

    @Test("Defaults are SDWebImage's: query serial, store highest-only, remove concurrent, contains serial, clear concurrent")
    func defaults() {
        let p = ImageCachesManager.Policies()
        #expect([p.query, p.store, p.remove, p.contains, p.clear] == [.serial, .highestOnly, .concurrent, .serial, .concurrent])
    }

    @Test("Store highest-only writes to the cache added last; lowest-only to the first")
    func storeTargets() async throws {
        var (manager, low, high) = make()
        await manager.store(try image(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(high.keys == ["k"] && low.keys.isEmpty)
        var policies = ImageCachesManager.Policies()
        policies.store = .lowestOnly
        (manager, low, high) = make(policies)
        await manager.store(try image(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(low.keys == ["k"] && high.keys.isEmpty)
        policies.store = .serial
        (manager, low, high) = make(policies)
        await manager.store(try image(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(low.keys == ["k"] && high.keys == ["k"])
    }

    @Test("A serial query asks the highest-priority cache first and stops at its hit")
    func serialQuery() async throws {
        let (manager, low, high) = make()
        await low.store(try image(), data: Data("low".utf8), key: "k", options: [], context: ImageContext(), cacheType: .disk)
        await high.store(try image(), data: Data("high".utf8), key: "k", options: [], context: ImageContext(), cacheType: .memory)
        let hit = await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(hit?.data == Data("high".utf8))
        #expect(low.queries.count == 0)
        // A miss in the highest falls through to the next.
        await low.store(nil, data: Data("only-low".utf8), key: "j", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await manager.query(key: "j", options: [], context: ImageContext(), cacheType: .all)?.data == Data("only-low".utf8))
        #expect(await manager.query(key: "missing", options: [], context: ImageContext(), cacheType: .all) == nil)
    }

    @Test("A concurrent query answers with the first hit to arrive")
    func concurrentQuery() async throws {
        var policies = ImageCachesManager.Policies()
        policies.query = .concurrent
        policies.contains = .concurrent
        let (manager, low, high) = make(policies, highDelay: .milliseconds(300))
        await low.store(nil, data: Data("fast".utf8), key: "k", options: [], context: ImageContext(), cacheType: .memory)
        await high.store(nil, data: Data("slow".utf8), key: "k", options: [], context: ImageContext(), cacheType: .disk)
        let hit = await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(hit?.data == Data("fast".utf8))
        #expect(await manager.contains(key: "k", cacheType: .all) == .memory)
        #expect(await manager.contains(key: "nope", cacheType: .all) == ImageCacheType.none)
    }

    @Test("Remove and clear reach every cache")
    func removeAndClear() async throws {
        let (manager, low, high) = make()
        for cache in [low, high] {
            await cache.store(try image(), data: nil, key: "a", options: [], context: ImageContext(), cacheType: .all)
            await cache.store(try image(), data: nil, key: "b", options: [], context: ImageContext(), cacheType: .all)
        }
        await manager.remove(key: "a", cacheType: .all)
        #expect(low.keys == ["b"] && high.keys == ["b"])
        await manager.clear(.all)
        #expect(low.keys.isEmpty && high.keys.isEmpty)
    }

    @Test("Highest-only and lowest-only queries ask exactly one cache")
    func onlyPolicies() async throws {
        var policies = ImageCachesManager.Policies()
        policies.query = .lowestOnly
        let (manager, low, high) = make(policies)
        await high.store(try image(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all) == nil)
        #expect(high.queries.count == 0 && low.queries.count == 1)
        manager.policies.query = .highestOnly
        #expect(await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all) != nil)
    }

    @Test("An empty manager misses and stores nowhere without failing")
    func empty() async throws {
        let manager = ImageCachesManager()
        await manager.store(try image(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(await manager.query(key: "k", options: [], context: ImageContext(), cacheType: .all) == nil)
        #expect(await manager.contains(key: "k", cacheType: .all) == ImageCacheType.none)
    }
}
