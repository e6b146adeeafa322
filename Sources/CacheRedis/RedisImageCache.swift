import Dispatch
import Foundation
import PipelineCore

/// The data tier of a fleet's cache on Redis or Valkey (through hiredis): encoded bytes with their
/// format and validators, shared by every server pointed at the same Redis. Decoded images stay in
/// each server's memory cache, so this cache answers only levels that include `.disk` and reports
/// its hits as `.disk`. Put it in an `ImageCachesManager` below the local caches:
///
///     ImageCachesManager(caches: [RedisImageCache(configuration: ...), DefaultImageCache.shared])
///
/// Faults never fail a request: an unreachable, slow (over `commandTimeout`) or full (`-OOM`)
/// server answers a query as a miss and drops a store; a circuit breaker then stops trying for
/// `breakerCooldown`. `stats` counts what happened.
public final class RedisImageCache: ImageCache {
    public let configuration: RedisCacheConfiguration
    /// Decodes hits and encodes stores given without bytes, unless the context names an `.imageCoder`.
    public let coders: ImageCodersManager
    let pool: RedisCommandPool
    let counters: RedisCacheCounters
    private let codingQueue = DispatchQueue(label: "imagepipe.redis-cache.coding", qos: .utility, attributes: .concurrent)

    /// - Parameters:
    ///   - configuration: the server, key prefix, limits, timeouts and breaker.
    ///   - coders: what decodes hits and encodes stores given without bytes.
    ///   - metrics: where hits, misses, faults by kind, the breaker and single-flight are counted
    ///     (`RedisCacheMetrics`); default: `MetricsSystem.factory`'s.
    public init(
        configuration: RedisCacheConfiguration = RedisCacheConfiguration(), coders: ImageCodersManager = .shared,
        metrics: RedisCacheMetrics = RedisCacheMetrics()
    ) {
        self.configuration = configuration
        self.coders = coders
        self.counters = RedisCacheCounters(metrics: metrics, configuration: configuration)
        self.pool = RedisCommandPool(configuration: configuration, counters: counters)
    }

    deinit { pool.close() }

    /// Stops the connections once the commands already queued are done; later lookups answer as
    /// misses and stores are dropped. A server calls it after its requests have drained.
    public func close() { pool.close() }

    public var stats: RedisCacheStats { counters.snapshot }

    /// Where an image's entry lives: the prefix, then "img:", then the cache key.
    func valueKey(_ key: String) -> String { configuration.keyPrefix + "img:" + key }

    // MARK: Entries (bytes)

    /// The stored entry for `key`; nil on a miss, a fault, or a value that is not a valid entry.
    /// GETRANGE reads at most one byte past the largest entry we store, so a foreign value of any
    /// size under our key costs no more memory than an entry may (a missing key reads as empty).
    public func entry(forKey key: String) async -> RedisCacheEntry? {
        await entry(forKey: key, maxBytes: configuration.maxEntryBytes)
    }

    /// `entry(forKey:)` for values whose payload may be up to `maxBytes`.
    func entry(forKey key: String, maxBytes: Int) async -> RedisCacheEntry? {
        let largest = maxBytes + 4096
        guard case .string(let value)? = await pool.run(["GETRANGE", valueKey(key), "0", String(largest)]), !value.isEmpty else {
            counters.record(.miss)
            return nil
        }
        guard value.count <= largest, let entry = RedisCacheEntry(decoding: value) else {
            counters.record(.corruptValue)
            counters.record(.miss)
            return nil
        }
        counters.record(.hit)
        return entry
    }

    /// Stores `entry` with the configured time to live; one larger than `maxEntryBytes` is left out.
    public func setEntry(_ entry: RedisCacheEntry, forKey key: String) async {
        guard entry.data.count <= configuration.maxEntryBytes, let value = entry.encoded() else {
            counters.record(.storeTooLarge)
            return
        }
        var arguments = [Data("SET".utf8), Data(valueKey(key).utf8), value]
        if let ttl = configuration.timeToLive {
            arguments += [Data("PX".utf8), Data(String(max(1, Self.milliseconds(ttl))).utf8)]
        }
        if await pool.run(arguments)?.isOK == true { counters.record(.store) }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    // MARK: ImageCache

    public func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        guard cacheType.includesDisk, !Task.isCancelled else { return nil }
        guard let entry = await entry(forKey: key), !Task.isCancelled else { return nil }
        let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: key)
        do {
            let image = try await coders.decodeImage(entry.data, options: decodeOptions, context: context) { [codingQueue] work in
                try await BlockingIO.run(on: codingQueue, work)
            }
            guard !Task.isCancelled else { return nil }
            return ImageCacheResult(image: image, data: entry.data, cacheType: .disk, validators: entry.validators)
        } catch ImagePipeError.badImageData {
            // Bytes that are not an image are dropped so the next query is a clean miss.
            counters.record(.corruptValue)
            _ = await pool.run(["DEL", valueKey(key)])
            return nil
        } catch {
            return nil
        }
    }

    public func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        guard cacheType.includesDisk, image != nil || data != nil else { return }
        // An animation's own bytes are its source file's; after a transform they would be the
        // untransformed picture under the transformed key, so it is encoded instead.
        var bytes = data ?? image.flatMap { $0.metadata.isTransformed ? nil : $0.animation?.data }
        if bytes == nil, let image {
            let coder: any ImageCoder = context[.imageCoder] ?? coders
            let encodeOptions = context[.encodeOptions] ?? ImageEncodeOptions()
            bytes = try? await BlockingIO.run(on: codingQueue) {
                let format = image.storageFormat
                let frames = image.frameCount > 1 && !encodeOptions.firstFrameOnly ? image : image.firstFrameOnly()
                return try coder.encode(frames, as: format, options: encodeOptions)
            }
        }
        guard let bytes, !bytes.isEmpty else { return }
        let format = image?.format ?? ImageFormat.detect(in: bytes)
        // The source's validators travel with the bytes, so any server revalidates with them.
        await setEntry(RedisCacheEntry(data: bytes, formatIdentifier: format.identifier, validators: context[.cacheValidators]), forKey: key)
    }

    public func remove(key: String, cacheType: ImageCacheType) async {
        guard cacheType.includesDisk else { return }
        _ = await pool.run(["DEL", valueKey(key)])
    }

    public func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        guard cacheType.includesDisk, case .integer(let count)? = await pool.run(["EXISTS", valueKey(key)]), count > 0 else { return .none }
        return .disk
    }

    /// Deletes this prefix's entries (`SCAN` + `DEL`, a batch at a time), never other keys on the
    /// server. twemproxy does not pass `SCAN` on; behind it, clear is a counted fault and a no-op.
    public func clear(_ cacheType: ImageCacheType) async {
        guard cacheType.includesDisk else { return }
        let pattern = Self.globEscaped(valueKey("")) + "*"
        var cursor = "0"
        repeat {
            guard case .array(let parts)? = await pool.run(["SCAN", cursor, "MATCH", pattern, "COUNT", "500"]),
                parts.count == 2, case .string(let next) = parts[0], case .array(let keys) = parts[1]
            else { return }
            let names = keys.compactMap { key -> Data? in
                if case .string(let name) = key { return name }
                return nil
            }
            if !names.isEmpty { _ = await pool.run([Data("DEL".utf8)] + names) }
            cursor = String(decoding: next, as: UTF8.self)
        } while cursor != "0"
    }

    /// `text` with Redis glob characters escaped, so a prefix matches only itself.
    static func globEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "*?[]\\".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
