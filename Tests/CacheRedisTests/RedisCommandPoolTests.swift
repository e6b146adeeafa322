import Foundation
import TestSupport
import Testing

@testable import CacheRedis

@Suite("Redis command pool: pipelining and its bounded queue", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct RedisCommandPoolTests {
    @Test("Hundreds of concurrent lookups pipelined over one connection each get their own entry")
    func pipelinedRepliesReachTheirCallers() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.connections = 1
        let cache = RedisImageCache(configuration: configuration)
        // Sizes on both sides of the copy threshold, and a missing key between them.
        for index in 0..<40 where index % 10 != 9 { await cache.setEntry(entry(UInt8(index), count: 16 + index * 37), forKey: "k\(index)") }
        let answers = await withTaskGroup(of: (Int, RedisCacheEntry?).self) { group in
            for round in 0..<400 {
                group.addTask { (round % 40, await cache.entry(forKey: "k\(round % 40)")) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 400)
        for (index, answer) in answers {
            #expect(answer == (index % 10 == 9 ? nil : entry(UInt8(index), count: 16 + index * 37)), "key k\(index)")
        }
        #expect(cache.stats.faults == 0)
    }

    @Test("A connection held by a slow command: commands beyond maxQueuedCommands answer miss at once, the queued ones hit after")
    func queueIsBounded() async throws {
        let server = try RedisTestServer()
        var configuration = server.configuration
        configuration.connections = 1
        configuration.maxQueuedCommands = 4
        configuration.commandTimeout = .seconds(600)
        let cache = RedisImageCache(configuration: configuration)
        await cache.setEntry(entry(3), forKey: "k")
        // BLPOP holds the only connection until the list gets an element.
        let blocker = Task { await cache.pool.run(["BLPOP", configuration.keyPrefix + "list", "0"]) }
        #expect(await eventually { Self.blockedClients(server) == 1 })
        let queued = (0..<4).map { _ in Task { await cache.entry(forKey: "k") } }
        #expect(await eventually { cache.pool.queuedCommands == 4 })
        #expect(await cache.entry(forKey: "k") == nil)
        #expect(cache.stats.skipped == 1)
        try server.command(["RPUSH", configuration.keyPrefix + "list", "go"])
        #expect(await blocker.value != nil)
        for task in queued { #expect(await task.value == entry(3)) }
        #expect(cache.stats.faults == 0)
    }

    static func blockedClients(_ server: RedisTestServer) -> Int {
        guard case .string(let info)? = try? server.command(["INFO", "clients"]) else { return 0 }
        let line = String(decoding: info, as: UTF8.self).split(whereSeparator: \.isNewline).first { $0.hasPrefix("blocked_clients:") }
        return line.flatMap { Int($0.dropFirst("blocked_clients:".count)) } ?? 0
    }
}
