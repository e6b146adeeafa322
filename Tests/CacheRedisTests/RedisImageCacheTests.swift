import Foundation
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

@testable import CacheRedis

func entry(_ byte: UInt8, count: Int = 64) -> RedisCacheEntry {
    RedisCacheEntry(data: Data(repeating: byte, count: count), formatIdentifier: "public.png", validators: CacheValidators(etag: "\"v\(byte)\""))
}

@Suite("RedisImageCache against a real redis-server", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct RedisImageCacheTests {
    @Test("The conformance kit's cache contract passes on the data tier")
    func conformance() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        var options = CacheConformance.Options()
        options.cacheTypes = [.disk, .all]
        await CacheConformance.check(cache, options: options)
        #expect(cache.stats.faults == 0)
    }

    @Test("An entry comes back with its format and validators; memory-only queries never reach Redis")
    func entryRoundTrip() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        await cache.setEntry(entry(7), forKey: "a")
        #expect(await cache.entry(forKey: "a") == entry(7))
        #expect(await cache.contains(key: "a", cacheType: .memory) == .none)
        #expect(await cache.contains(key: "a", cacheType: .all) == .disk)
        #expect(await cache.query(key: "a", options: [], context: ImageContext(), cacheType: .memory) == nil)
    }

    @Test("A store keeps the source's validators from the context with the bytes")
    func storeKeepsValidators() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        let validators = CacheValidators(etag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", freshnessLifetime: 600)
        let context = ImageContext().with(.cacheValidators, validators)
        await cache.store(nil, data: Data(repeating: 1, count: 16), key: "a", options: [], context: context, cacheType: .disk)
        #expect(await cache.entry(forKey: "a")?.validators == validators)
    }

    @Test("Entries over maxEntryBytes stay local and are counted")
    func largeEntryStaysLocal() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.maxEntryBytes = 1000
        let cache = RedisImageCache(configuration: configuration)
        await cache.setEntry(entry(1, count: 1001), forKey: "big")
        #expect(await cache.entry(forKey: "big") == nil)
        #expect(cache.stats.storesTooLarge == 1)
    }

    @Test("Entries carry the configured time to live")
    func timeToLive() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.timeToLive = .seconds(60)
        let cache = RedisImageCache(configuration: configuration)
        await cache.setEntry(entry(2), forKey: "ttl")
        guard case .integer(let ms) = try server.command(["PTTL", cache.valueKey("ttl")]) else {
            Issue.record("no PTTL")
            return
        }
        #expect((1...60_000).contains(ms))
    }

    @Test("A foreign or truncated value under our key is a counted miss")
    func foreignValueIsMiss() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        try server.command(["SET", cache.valueKey("foreign"), "not an entry"])
        #expect(await cache.entry(forKey: "foreign") == nil)
        var truncated = try #require(entry(3).encoded())
        truncated.removeLast()
        _ = try RedisConnection(configuration: cache.configuration).command([Data("SET".utf8), Data(cache.valueKey("cut").utf8), truncated])
        #expect(await cache.entry(forKey: "cut") == nil)
        #expect(cache.stats.corruptValues == 2)
    }

    @Test("A foreign value larger than any entry is read only up to the entry limit and is a counted miss")
    func oversizedForeignValueIsBoundedMiss() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.maxEntryBytes = 1000
        let cache = RedisImageCache(configuration: configuration)
        var oversized = try #require(entry(4).encoded())
        oversized += Data(repeating: 0x41, count: 64 << 10)
        _ = try RedisConnection(configuration: cache.configuration).command([Data("SET".utf8), Data(cache.valueKey("big").utf8), oversized])
        #expect(await cache.entry(forKey: "big") == nil)
        #expect(await cache.entry(forKey: "absent") == nil)
        #expect(cache.stats.corruptValues == 1)
        #expect(cache.stats.misses == 2)
    }

    @Test("Prefixes keep caches apart, and clear removes only its own prefix")
    func prefixesAreSeparate() async throws {
        let server = try RedisTestServer()
        let first = RedisImageCache(configuration: server.configuration)
        var otherConfiguration = server.configuration
        otherConfiguration.keyPrefix = "other*[x]:"
        let second = RedisImageCache(configuration: otherConfiguration)
        await first.setEntry(entry(1), forKey: "k")
        await second.setEntry(entry(2), forKey: "k")
        try server.command(["SET", "unrelated", "keep me"])
        await second.clear(.disk)
        #expect(await second.entry(forKey: "k") == nil)
        #expect(await first.entry(forKey: "k") == entry(1))
        #expect(try server.command(["GET", "unrelated"]) == .string(Data("keep me".utf8)))
    }

    @Test("AUTH and SELECT from a redis:// URL reach the right database")
    func authAndDatabase() async throws {
        let server = try RedisTestServer(extra: ["--requirepass", "s3cret"])
        var configuration = try RedisCacheConfiguration(url: "redis://:s3cret@127.0.0.1:\(server.port)/5")
        configuration.keyPrefix = "auth:"
        configuration.commandTimeout = server.configuration.commandTimeout
        configuration.connectTimeout = server.configuration.connectTimeout
        let cache = RedisImageCache(configuration: configuration)
        await cache.setEntry(entry(4), forKey: "k")
        #expect(await cache.entry(forKey: "k") == entry(4))
        let keys = try RedisConnection(configuration: configuration).command(["DBSIZE"])
        #expect(keys == .integer(1))
        var wrong = configuration
        wrong.password = "wrong"
        let refused = RedisImageCache(configuration: wrong)
        #expect(await refused.entry(forKey: "k") == nil)
        #expect(refused.stats.faults >= 1)
    }
}

@Suite("The value encoding", .serialized)
struct RedisCacheEntryTests {
    @Test("Every truncation of an encoded entry is refused, never read past its end")
    func truncations() throws {
        let encoded = try #require(entry(9, count: 20).encoded())
        #expect(RedisCacheEntry(decoding: encoded) == entry(9, count: 20))
        for length in 0..<encoded.count {
            #expect(RedisCacheEntry(decoding: encoded.prefix(length)) == nil)
        }
        var otherVersion = encoded
        otherVersion[4] = 3
        #expect(RedisCacheEntry(decoding: otherVersion) == nil)
    }

    @Test("A value an older server wrote (version 1: no freshness) is still read with its validators")
    func versionOneIsRead() throws {
        var value = Data("IPRC".utf8) + [1, 10] + Data("public.png".utf8)
        value += [0, 4] + Data("\"v1\"".utf8) + [0, 0]
        value += [0, 0, 0, 0, 0, 0, 0, 3] + [7, 8, 9]
        let read = try #require(RedisCacheEntry(decoding: value))
        #expect(read == RedisCacheEntry(data: Data([7, 8, 9]), formatIdentifier: "public.png", validators: CacheValidators(etag: "\"v1\"")))
    }

    @Test("Validators read back are sanitized: a header with a line break or an impossible lifetime is dropped")
    func validatorsAreSanitized() throws {
        let hostile = RedisCacheEntry(
            data: Data([1]), formatIdentifier: "public.png",
            validators: CacheValidators(etag: "\"a\"\r\nX-Injected: 1", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", freshnessLifetime: -.infinity))
        let hostileValue = try #require(hostile.encoded())
        let read = try #require(RedisCacheEntry(decoding: hostileValue))
        #expect(read.validators == CacheValidators(lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"))
        let none = RedisCacheEntry(data: Data([1]), formatIdentifier: "public.png", validators: CacheValidators(etag: "\u{7F}"))
        let noneValue = try #require(none.encoded())
        #expect(RedisCacheEntry(decoding: noneValue)?.validators == nil)
    }
}
