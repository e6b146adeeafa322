import CacheRedis
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import Testing

@testable import imagepipe_serve

/// `serve --redis`'s pools under the server's `ServiceGroup`: open while it runs, closed once a
/// graceful shutdown has been asked for.
@Suite("Redis pools as a service", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct RedisPoolServiceTests {
    @Test("A cache added to the service answers until graceful shutdown; after it, lookups are skipped, not sent")
    func closesOnGracefulShutdown() async throws {
        let server = try RedisTestServer()
        let service = RedisPoolService()
        var configuration = RedisCacheConfiguration(host: "127.0.0.1", port: Int(server.port))
        configuration.commandTimeout = .seconds(10)
        let cache = service.adding(RedisImageCache(configuration: configuration))
        let entry = RedisCacheEntry(data: Data([1, 2, 3]), formatIdentifier: "png")
        await cache.setEntry(entry, forKey: "k")
        #expect(await cache.entry(forKey: "k") == entry)

        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let skipped = cache.stats.skipped
        #expect(await cache.entry(forKey: "k") == nil)
        #expect(cache.stats.skipped == skipped + 1)
        #expect(cache.stats.faults == 0)
    }
}
