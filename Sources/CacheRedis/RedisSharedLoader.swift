import Foundation
import PipelineCore

/// A loader for a fleet of servers sharing one Redis: a source another server already fetched is
/// read from Redis, and a source several servers miss at once is fetched from its origin by one of
/// them (`RedisImageCache.claimFetch`) while the others wait for its copy. The copy keeps the
/// origin's validators (`ImageLoadResponse.cacheValidators`), so every server answers
/// with the same ones. Redis faults fall back to the origin; they never fail a load.
///
/// Entries are keyed by the URL's absolute string, the key `ImageManager` keeps original bytes
/// under, so a manager with the same `RedisImageCache` in its caches finds them too.
public struct RedisSharedLoader: ImageLoader {
    public let origin: any ImageLoader
    public let cache: RedisImageCache

    /// Whether keys carry the source's purge generation (`RedisImageCache.purgeGeneration(of:)`),
    /// so a purge also reaches sources copied before it: one `MGET` more per load. While Redis
    /// cannot be asked, loads go to the origin.
    package var foldsPurgeGenerations = false

    public init(origin: any ImageLoader, cache: RedisImageCache) {
        self.origin = origin
        self.cache = cache
    }

    public func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        origin.canLoad(url, options: options, context: context)
    }

    public func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        guard Self.shares(url) else { return try await origin.load(url, options: options, context: context, progress: progress) }
        var key = url.absoluteString
        if foldsPurgeGenerations {
            guard let generation = await cache.purgeGeneration(of: url) else {
                return try await origin.load(url, options: options, context: context, progress: progress)
            }
            if !generation.isEmpty { key += "\n" + generation }
        }
        if let stored = await storedCopy(of: url, key: key, progress: progress) { return stored }
        let fetch = { try await origin.load(url, options: options, context: context, progress: progress) }
        switch await cache.claimFetch(forKey: key) {
        case .stored:
            // Evicted between the other server's store and this read: fetch alone.
            if let stored = await storedCopy(of: url, key: key, progress: progress) { return stored }
            return try await fetchAndStore(key: key, fetch)
        case .fetch(let lease):
            return try await cache.withLease(lease) { try await fetchAndStore(key: key, fetch) }
        case .fetchAlone:
            return try await fetchAndStore(key: key, fetch)
        }
    }

    /// Whether a load of `url` goes through Redis: a local file is each machine's own, read and
    /// never shared. A manager whose caches include the same `RedisImageCache` need not store such a
    /// source's original there again (`ImageContext.originalImageCache`): it is already stored.
    public static func shares(_ url: URL) -> Bool { !url.isFileURL }

    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        origin.shouldBlockURL(url, error: error, options: options, context: context)
    }

    private func storedCopy(of url: URL, key: String, progress: (@Sendable (ImageLoadProgress) -> Void)?) async -> ImageLoadResult? {
        guard let entry = await cache.entry(forKey: key) else { return nil }
        let size = Int64(entry.data.count)
        progress?(ImageLoadProgress(receivedBytes: size, expectedBytes: size))
        let response = RedisStoredResponse(url: url, formatIdentifier: entry.formatIdentifier, cacheValidators: entry.validators)
        return ImageLoadResult(data: entry.data, response: response)
    }

    /// Fetches from the origin and keeps an image's bytes with its validators, through the cache's
    /// one store path (anything that is not an image, or only its first frame's part, is not stored).
    private func fetchAndStore(key: String, _ fetch: () async throws -> ImageLoadResult) async throws -> ImageLoadResult {
        let result = try await fetch()
        if !result.isPrefix, ImageFormat.detect(in: result.data) != .undefined {
            let context = ImageContext().with(.cacheValidators, result.response?.cacheValidators)
            await cache.store(nil, data: result.data, key: key, options: [], context: context, cacheType: .disk)
        }
        return result
    }
}

/// The answer `RedisSharedLoader` gives for bytes read from Redis: the origin's validators as
/// another server stored them.
public struct RedisStoredResponse: ImageLoadResponse, Hashable {
    public let url: URL
    /// The stored format's identifier (`ImageFormat.identifier`).
    public let formatIdentifier: String
    public let cacheValidators: CacheValidators?

    public var mimeType: String? { ImageFormat.named(formatIdentifier)?.mimeType }
}
