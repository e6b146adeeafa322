import Foundation
import MetricsTestKit
import TestSupport
import Testing

@testable import CacheRedis

/// A down, slow, full or restarted server makes a miss or a dropped store, never an error or a hang;
/// the cache serves again once the server is back.
@Suite("Redis faults degrade to misses", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct RedisFaultTests {
    @Test("Killed mid-run: misses and a counted fault, then hits again after a restart")
    func killedAndRestarted() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        await cache.setEntry(entry(1), forKey: "k")
        #expect(await cache.entry(forKey: "k") == entry(1))
        server.stop()
        #expect(await cache.entry(forKey: "k") == nil)
        await cache.setEntry(entry(2), forKey: "k")
        #expect(cache.stats.faults >= 1)
        // Misses while down are answered by the breaker without touching the network (asked until
        // one lands within a cooldown, however slowly this task runs).
        #expect(
            await eventually(timeout: .seconds(60)) {
                _ = await cache.entry(forKey: "k")
                return cache.stats.skipped > 0
            })
        try server.start()
        await cache.setEntry(entry(3), forKey: "k")
        let back = await eventually(timeout: .seconds(60)) {
            if await cache.entry(forKey: "k") == nil { await cache.setEntry(entry(3), forKey: "k") }
            return await cache.entry(forKey: "k") == entry(3)
        }
        #expect(back)
    }

    @Test("A server slower than the command timeout (DEBUG SLEEP) answers miss, then hits again")
    func slowServer() async throws {
        // Redis 7 refuses DEBUG unless enabled.
        let server = try RedisTestServer(extra: ["--enable-debug-command", "local"])
        var configuration = server.configuration
        let patient = RedisImageCache(configuration: configuration)
        await patient.setEntry(entry(5), forKey: "k")
        #expect(try server.command(["EXISTS", patient.valueKey("k")]) == .integer(1))
        // Shorter than the server's sleeps, so commands behind one time out.
        configuration.commandTimeout = .milliseconds(300)
        let cache = RedisImageCache(configuration: configuration)
        // The server sleeps in 1 s turns until the test has seen a miss, so a test task starved by a
        // loaded machine still finds it asleep.
        let seenMiss = Counter()
        let sleeper = Thread {
            while seenMiss.count == 0 { _ = try? server.command(["DEBUG", "SLEEP", "1"]) }
        }
        sleeper.start()
        let missed = await eventually(timeout: .seconds(60)) { await cache.entry(forKey: "k") == nil }
        seenMiss.increment()
        #expect(missed)
        #expect(cache.stats.timeouts >= 1)
        #expect(await eventually(timeout: .seconds(60)) { await cache.entry(forKey: "k") == entry(5) })
    }

    @Test("maxmemory with noeviction: -OOM drops the store, reads still hit, stores work after")
    func outOfMemory() async throws {
        let server = try RedisTestServer(extra: ["--maxmemory-policy", "noeviction"])
        let cache = RedisImageCache(configuration: server.configuration)
        await cache.setEntry(entry(6), forKey: "small")
        try server.command(["CONFIG", "SET", "maxmemory", "1"])
        await cache.setEntry(entry(7, count: 100_000), forKey: "big")
        #expect(cache.stats.outOfMemoryReplies >= 1)
        try server.command(["CONFIG", "SET", "maxmemory", "0"])
        #expect(
            await eventually(timeout: .seconds(60)) {
                await cache.setEntry(entry(7, count: 100_000), forKey: "big")
                return await cache.entry(forKey: "big") == entry(7, count: 100_000)
            })
        #expect(await cache.entry(forKey: "small") == entry(6))
    }

    @Test("Two caches on one metrics factory report their own breaker: open for the dead server, closed for the live one")
    func breakerGaugePerCache() async throws {
        let metrics = TestMetrics()
        let server = try RedisTestServer()
        var dead = RedisCacheConfiguration(host: "127.0.0.1", port: Int(TestProcesses.freePort()))
        dead.breakerCooldown = .seconds(600)
        let live = server.configuration
        let down = RedisImageCache(configuration: dead, metrics: RedisCacheMetrics(factory: metrics))
        let up = RedisImageCache(configuration: live, metrics: RedisCacheMetrics(factory: metrics))
        for _ in 0..<dead.breakerThreshold { _ = await down.entry(forKey: "k") }
        await up.setEntry(entry(1), forKey: "k")
        #expect(await up.entry(forKey: "k") == entry(1))
        #expect(down.stats.breakerOpenings == 1)
        let gauge = { (configuration: RedisCacheConfiguration) in
            try metrics.expectGauge(
                "imagepipe_redis_breaker_open",
                [
                    ("server", "127.0.0.1:\(configuration.port)/0"), ("prefix", configuration.keyPrefix),
                ]
            ).lastValue
        }
        #expect(try gauge(dead) == 1)
        #expect(try gauge(live) == 0)
    }

    @Test("Nothing listening: every call answers miss and the breaker opens")
    func nothingListening() async throws {
        var configuration = RedisCacheConfiguration(host: "127.0.0.1", port: Int(TestProcesses.freePort()))
        configuration.breakerCooldown = .seconds(60)
        let cache = RedisImageCache(configuration: configuration)
        for _ in 0..<10 {
            #expect(await cache.entry(forKey: "k") == nil)
            #expect(await cache.contains(key: "k", cacheType: .disk) == .none)
        }
        let stats = cache.stats
        #expect(stats.breakerOpenings == 1)
        #expect(stats.faults == configuration.breakerThreshold)
        #expect(stats.connectionFaults == configuration.breakerThreshold)
        #expect(stats.skipped == 20 - configuration.breakerThreshold)
    }
}
