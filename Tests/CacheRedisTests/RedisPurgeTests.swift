import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CacheRedis

@Suite("Purge generations and shared results")
struct RedisPurgeTests {
    @Test("A source's purgeable prefixes are its folders, shortest first, before any query, at most maxPurgeDepth")
    func prefixes() {
        #expect(
            RedisImageCache.purgePrefixes(of: "https://cdn.example.com/a/b/cat.png?v=1/2")
                == ["https://cdn.example.com/", "https://cdn.example.com/a/", "https://cdn.example.com/a/b/"])
        #expect(RedisImageCache.purgePrefixes(of: "file:///srv/img/x.png") == ["file:///", "file:///srv/", "file:///srv/img/"])
        #expect(RedisImageCache.purgePrefixes(of: "not a url").isEmpty)
        let deep = "https://h/" + String(repeating: "d/", count: 40) + "x.png"
        #expect(RedisImageCache.purgePrefixes(of: deep).count == RedisImageCache.maxPurgeDepth)
    }

    @Test("A purgeable prefix is a folder: ends in /, no query, not deeper than maxPurgeDepth")
    func purgeablePrefixes() {
        #expect(RedisImageCache.isPurgeablePrefix("https://h/"))
        #expect(RedisImageCache.isPurgeablePrefix("https://h/a/b/"))
        #expect(!RedisImageCache.isPurgeablePrefix("https://h/a/b"))
        #expect(!RedisImageCache.isPurgeablePrefix("https://h"))
        #expect(!RedisImageCache.isPurgeablePrefix("https://h/a/?x=/"))
        #expect(!RedisImageCache.isPurgeablePrefix("https://h/" + String(repeating: "d/", count: RedisImageCache.maxPurgeDepth)))
        #expect(RedisImageCache.isPurgeablePrefix("https://h/" + String(repeating: "d/", count: RedisImageCache.maxPurgeDepth - 1)))
    }

    @Test(
        "A purge by URL or by a folder changes the source's generation, and nothing else's",
        .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func generations() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        let cat = URL(string: "https://h/a/b/cat.png")!, dog = URL(string: "https://h/z/dog.png")!
        #expect(await cache.purgeGeneration(of: cat) == "")
        #expect(await cache.purge(source: cat))
        let afterURL = try #require(await cache.purgeGeneration(of: cat))
        #expect(afterURL != "")
        #expect(await cache.purgeGeneration(of: dog) == "")
        #expect(await cache.purge(prefix: "https://h/a/"))
        let afterPrefix = try #require(await cache.purgeGeneration(of: cat))
        #expect(afterPrefix != afterURL && afterPrefix != "")
        #expect(await cache.purgeGeneration(of: dog) == "")
        #expect(await cache.purge(prefix: "https://h/"))
        #expect(await cache.purgeGeneration(of: dog) != "")
        #expect(!(await cache.purge(prefix: "https://h/a")))
        server.stop()
        #expect(await cache.purgeGeneration(of: cat) == nil)
        #expect(!(await cache.purge(source: cat)))
    }

    @Test(
        "A result comes back with its ETag; one over maxResultBytes leaves a marker that says render locally",
        .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func results() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.maxResultBytes = 100
        let cache = RedisImageCache(configuration: configuration)
        let key = RedisImageCache.resultKey("digest")
        #expect(await cache.result(forKey: key) == .miss)
        await cache.storeResult(entry(3, count: 100), forKey: key)
        #expect(await cache.result(forKey: key) == .hit(entry(3, count: 100)))
        let large = RedisImageCache.resultKey("large")
        await cache.storeResult(entry(4, count: 101), forKey: large)
        #expect(await cache.result(forKey: large) == .localOnly)
        server.stop()
        await cache.storeResult(entry(5), forKey: key)
        #expect(await cache.result(forKey: key) == .miss)
    }
}
