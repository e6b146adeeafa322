import Foundation
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import CacheRedis

@Suite("Single-flight across processes", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct RedisSingleFlightTests {
    @Test("Two caches (two servers) missing the same key: one fetches, the other reads its result")
    func oneFetchForTwoServers() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.lockPollInterval = .milliseconds(10)
        configuration.lockMaxWait = .seconds(30)
        let caches = [RedisImageCache(configuration: configuration), RedisImageCache(configuration: configuration)]
        let fetches = FetchCounter()
        let results = await withTaskGroup(of: RedisCacheEntry?.self) { group in
            for index in 0..<10 {
                let cache = caches[index % 2]
                group.addTask {
                    switch await cache.claimFetch(forKey: "hot") {
                    case .fetch(let lease):
                        fetches.bump()
                        try? await Task.sleep(for: .milliseconds(50))
                        await cache.setEntry(entry(8), forKey: "hot")
                        await cache.release(lease)
                        return await cache.entry(forKey: "hot")
                    case .stored:
                        return await cache.entry(forKey: "hot")
                    case .fetchAlone:
                        return nil
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(fetches.value == 1)
        #expect(results.allSatisfy { $0 == entry(8) })
        #expect(caches.map(\.stats.fetchesClaimed).reduce(0, +) == 1)
        #expect(caches.map(\.stats.fetchesWaited).reduce(0, +) == 9)
        #expect(caches.map(\.stats.fetchesAlone).reduce(0, +) == 0)
    }

    @Test("A fetch that outlasts the lock's lifetime keeps its lock: two loaders make 1 origin request")
    func longFetchRenewsItsLock() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.lockTimeToLive = .seconds(2)
        configuration.lockPollInterval = .milliseconds(20)
        configuration.lockMaxWait = .seconds(600)
        let url = URL(string: "test://origin/slow.png")!
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 256)
        let origin = TestLoader()
        let gate = Gate()
        origin.answer(url, with: .data(png), gate: gate)
        let caches = [RedisImageCache(configuration: configuration), RedisImageCache(configuration: configuration)]
        let loaders = caches.map { RedisSharedLoader(origin: origin, cache: $0) }
        let first = Task { try await loaders[0].load(url, options: [], context: ImageContext(), progress: nil) }
        #expect(await eventually(timeout: .seconds(60)) { origin.requests(url.absoluteString) == 1 })
        let second = Task { try await loaders[1].load(url, options: [], context: ImageContext(), progress: nil) }
        // The origin holds its answer until the lock has lived twice its lifetime: only renewed
        // is it still there, and the second loader, waiting all along, never took it.
        try await Task.sleep(for: configuration.lockTimeToLive * 2)
        guard case .integer(let remaining) = try server.command(["PTTL", caches[0].lockKey(url.absoluteString)]) else {
            Issue.record("no PTTL")
            return
        }
        #expect(remaining > 0, "the lock expired while its holder was fetching")
        gate.open()
        #expect(try await first.value.data == png)
        #expect(try await second.value.data == png)
        #expect(origin.requests(url.absoluteString) == 1)
        #expect(caches[1].stats.fetchesWaited == 1)
        // Released on completion, and no longer renewed.
        #expect(try server.command(["EXISTS", caches[0].lockKey(url.absoluteString)]) == .integer(0))
    }

    @Test("A holder that gives up without storing hands the lock to a waiter")
    func abandonedLockIsTakenOver() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.lockPollInterval = .milliseconds(10)
        configuration.lockMaxWait = .seconds(60)
        let first = RedisImageCache(configuration: configuration)
        let second = RedisImageCache(configuration: configuration)
        guard case .fetch(let lease) = await first.claimFetch(forKey: "k") else {
            Issue.record("no lease")
            return
        }
        let waiter = Task { await second.claimFetch(forKey: "k") }
        try await Task.sleep(for: .milliseconds(50))
        await first.release(lease)
        guard case .fetch = await waiter.value else {
            Issue.record("the waiter did not take the lock over")
            return
        }
    }

    @Test("Release deletes the lock only while the token still matches")
    func releaseComparesToken() async throws {
        let server = try RedisTestServer()
        let cache = RedisImageCache(configuration: server.configuration)
        guard case .fetch(let lease) = await cache.claimFetch(forKey: "k") else {
            Issue.record("no lease")
            return
        }
        try server.command(["SET", cache.lockKey("k"), "someone-else"])
        await cache.release(lease)
        #expect(try server.command(["GET", cache.lockKey("k")]) == .string(Data("someone-else".utf8)))
    }

    @Test("Redis down: claimFetch says fetch alone at once")
    func downMeansFetchAlone() async throws {
        let cache = RedisImageCache(configuration: RedisCacheConfiguration(host: "127.0.0.1", port: Int(TestProcesses.freePort())))
        #expect(await cache.claimFetch(forKey: "k") == .fetchAlone)
    }
}

@Suite("Sharding through twemproxy", .enabled(if: RedisTestServer.isInstalled && RedisTestServer.hasNutcracker, "redis-server or nutcracker is not installed (make deps installs them)"))
struct RedisNutcrackerTests {
    @Test("Through nutcracker over two servers every stored key hits, spread over both")
    func shardedHits() async throws {
        let shards = [try RedisTestServer(), try RedisTestServer()]
        let proxy = try RedisTestServer.nutcracker(over: shards)
        let cache = RedisImageCache(configuration: proxy.configuration)
        for index in 0..<100 { await cache.setEntry(entry(UInt8(index)), forKey: "url-\(index)") }
        for index in 0..<100 { #expect(await cache.entry(forKey: "url-\(index)") == entry(UInt8(index))) }
        for shard in shards {
            guard case .integer(let keys) = try shard.command(["DBSIZE"]) else {
                Issue.record("no DBSIZE")
                continue
            }
            #expect(keys > 0, "shard on port \(shard.port) holds no key")
        }
        guard case .fetch(let lease) = await cache.claimFetch(forKey: "url-new") else {
            Issue.record("no lease")
            return
        }
        await cache.release(lease)
        #expect(cache.stats.faults == 0)
    }
}

final class FetchCounter: Sendable {
    private let count = Mutex(0)
    func bump() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
