import CacheRedis
import ServiceLifecycle
import Synchronization

/// `serve --redis`'s connection pools as a `Service` of the server's `ServiceGroup`: they close on
/// graceful shutdown, after the HTTP server (which the group stops first) has drained, and before
/// the trace exporter flushes.
final class RedisPoolService: Service, Sendable {
    private let caches = Mutex<[RedisImageCache]>([])

    /// `cache`, closed with the others at shutdown.
    func adding(_ cache: RedisImageCache) -> RedisImageCache {
        caches.withLock { $0.append(cache) }
        return cache
    }

    func run() async throws {
        try? await gracefulShutdown()
        for cache in caches.withLock({ $0 }) { cache.close() }
    }
}
