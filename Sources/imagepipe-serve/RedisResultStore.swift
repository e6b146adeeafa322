import CacheRedis
import CoreMetrics
import Foundation
import ImageServer
import PipelineCore
import Synchronization

/// `serve --redis`'s fleet tier of results: the server's `SharedResultStore` over the same
/// `RedisImageCache` (one pool, one breaker) its shared sources go through.
struct RedisResultStore: SharedResultStore {
    let cache: RedisImageCache

    func purgeGeneration(of source: URL) async -> String? { await cache.purgeGeneration(of: source) }

    func result(forKey key: String) async -> SharedResultLookup {
        switch await cache.result(forKey: RedisImageCache.resultKey(key)) {
        case .hit(let entry):
            guard let etag = entry.validators?.etag else { return .miss }
            return .hit(SharedResult(data: entry.data, formatIdentifier: entry.formatIdentifier, etag: etag, lastModified: entry.validators?.lastModified))
        case .localOnly: return .localOnly
        case .miss: return .miss
        }
    }

    func store(_ result: SharedResult, forKey key: String) async {
        let validators = CacheValidators(etag: result.etag, lastModified: result.lastModified)
        await cache.storeResult(RedisCacheEntry(data: result.data, formatIdentifier: result.formatIdentifier, validators: validators), forKey: RedisImageCache.resultKey(key))
    }

    func renderOnce<T, E: Error>(forKey key: String, _ render: () async throws(E) -> T) async throws(E) -> T? {
        switch await cache.claimFetch(forKey: RedisImageCache.resultKey(key)) {
        case .fetch(let lease): return try await cache.withLease(lease, render)
        case .fetchAlone: return try await render()
        case .stored: return nil
        }
    }

    func purge(source: URL) async -> Bool { await cache.purge(source: source) }
    func purge(prefix: String) async -> Bool { await cache.purge(prefix: prefix) }
    func isPurgeablePrefix(_ prefix: String) -> Bool { RedisImageCache.isPurgeablePrefix(prefix) }
}

/// The one `RedisImageCache` of `serve --redis`, made with the server's metrics factory on first
/// use, for both its shared sources and its shared results; closed with the server's other pools.
final class ServeRedisTier: Sendable {
    private let configuration: RedisCacheConfiguration
    private let pools: RedisPoolService
    private let made = Mutex<RedisImageCache?>(nil)

    init(configuration: RedisCacheConfiguration, pools: RedisPoolService) {
        self.configuration = configuration
        self.pools = pools
    }

    func cache(factory: any MetricsFactory) -> RedisImageCache {
        made.withLock { made in
            if let made { return made }
            let cache = pools.adding(RedisImageCache(configuration: configuration, metrics: RedisCacheMetrics(factory: factory)))
            made = cache
            return cache
        }
    }
}
