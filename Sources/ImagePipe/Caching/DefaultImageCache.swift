import Dispatch
import Foundation
import Logging
import PipelineCore

/// The default two-level `ImageCache`: decoded images in a `MemoryCache`, encoded bytes in a
/// `DiskCache`, with SDWebImage's `SDImageCache` semantics.
///
/// Query: memory first; a memory hit answers at once (`.memory`) unless `.queryMemoryData` asks for
/// the bytes too. Otherwise the disk is read — one read per key however many ask at once — decoded
/// with the request's decode options, and promoted to memory when the context's `.storeCacheType`
/// includes memory. A decoded thumbnail asked for under a full-size key is promoted under the
/// thumbnail key instead, so it never poses as the full image. Disk answers report `.disk`, even
/// with a memory image (SDWebImage's rule for `.queryMemoryData`). A cancelled query answers nil,
/// once, without waiting for the disk.
public final class DefaultImageCache: ImageCache {
    /// The cache `ImageManager` uses unless told otherwise: namespace "default" in
    /// `defaultDirectory`.
    public static let shared = DefaultImageCache()

    public let memoryCache: MemoryCache<String, Image>
    public let diskCache: DiskCache
    /// Decodes what the disk holds and encodes what it must write, unless a request's context names
    /// an `.imageCoder`.
    public let coders: ImageCodersManager
    private let queue = DispatchQueue(label: "imagepipe.image-cache.io", qos: .utility, attributes: .concurrent)
    /// One disk read per key at a time: concurrent queries of a key not in memory share the read
    /// in flight (Kingfisher's #966: a grid of one image read it once per cell); each caller still
    /// decodes with its own options.
    private let diskReads = Coalescer<String, DiskEntry?, Never>()

    /// An entry's bytes and what was kept beside them.
    private struct DiskEntry: Sendable {
        var data: Data
        var info: EntryInfo?
    }
    /// Called on the I/O queue before each disk read; tests hold reads back with it.
    private let willReadDisk: (@Sendable (String) -> Void)?

    /// `$XDG_CACHE_HOME/imagepipe`, else `~/.cache/imagepipe` (the XDG base directory rules).
    package static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("imagepipe", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".cache/imagepipe", isDirectory: true)
    }

    /// A cache whose files live in `directory/namespace` (`defaultDirectory` when nil). Caches with
    /// different namespaces never see each other's entries.
    public convenience init(
        namespace: String = "default",
        directory: URL? = nil,
        memoryCache: MemoryCache<String, Image> = MemoryCache(),
        diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(),
        coders: ImageCodersManager = .shared
    ) {
        let folder = (directory ?? Self.defaultDirectory)
            .appendingPathComponent(Self.directoryName(forNamespace: namespace), isDirectory: true)
        self.init(memoryCache: memoryCache, diskCache: DiskCache(directory: folder, configuration: diskConfiguration), coders: coders)
    }

    public convenience init(memoryCache: MemoryCache<String, Image>, diskCache: DiskCache, coders: ImageCodersManager = .shared) {
        self.init(memoryCache: memoryCache, diskCache: diskCache, coders: coders, willReadDisk: nil)
    }

    init(
        memoryCache: MemoryCache<String, Image>, diskCache: DiskCache, coders: ImageCodersManager,
        willReadDisk: (@Sendable (String) -> Void)?
    ) {
        self.memoryCache = memoryCache
        self.diskCache = diskCache
        self.coders = coders
        self.willReadDisk = willReadDisk
    }

    /// A namespace is one folder name: separators and dot-names would leave the cache directory.
    static func directoryName(forNamespace namespace: String) -> String {
        let cleaned = String(namespace.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "_" + cleaned : cleaned
    }

    // MARK: Query

    public func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        guard cacheType != .none else { return nil }
        var memoryImage = cacheType.includesMemory ? self.memoryImage(forKey: key, options: options, context: context) : nil
        if cacheType == .memory || (memoryImage != nil && !options.contains(.queryMemoryData)) {
            guard let memoryImage else { return nil }
            // A revalidation needs what the disk entry kept about the source.
            let validators = options.contains(.refreshCached) && cacheType.includesDisk ? await storedValidators(forKey: key) : nil
            return ImageCacheResult(image: memoryImage, data: nil, cacheType: .memory, validators: validators)
        }
        let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: key)
        let entry: DiskEntry?
        do {
            // Throws only when this query is cancelled; the read goes on for the others.
            entry = try await diskReads.value(for: key) { [queue, willReadDisk] _ in
                await BlockingIO.run(on: queue) {
                    willReadDisk?(key)
                    return self.readEntry(forKey: key)
                }
            }
        } catch {
            return nil
        }
        guard !Task.isCancelled else { return nil }
        guard let entry else {
            return memoryImage.map { ImageCacheResult(image: $0, data: nil, cacheType: .disk) }
        }
        let validators = entry.info?.validators
        // Another query may have decoded and promoted this key while we read (SDWebImage #3523).
        if memoryImage == nil, cacheType.includesMemory {
            memoryImage = self.memoryImage(forKey: key, options: options, context: context)
        }
        if let memoryImage { return ImageCacheResult(image: memoryImage, data: entry.data, cacheType: .disk, validators: validators) }
        guard let image = await decode(entry, key: key, options: decodeOptions, context: context) else { return nil }
        guard !Task.isCancelled else { return nil }
        promote(image, key: key, context: context)
        return ImageCacheResult(image: image, data: entry.data, cacheType: .disk, validators: validators)
    }

    /// The entry's bytes and facts; nil on a miss, for an entry that is not whole (its length is
    /// not the one written with it, or none was), and for an entry past its source's freshness when
    /// the disk cache honours it. Those entries are removed.
    private func readEntry(forKey key: String) -> DiskEntry? {
        guard let data = diskCache.data(forKey: key) else { return nil }
        let info = Self.entryInfo(diskCache.extendedData(forKey: key))
        guard let info, info.length == data.count else {
            diskCache.configuration.logger.notice(
                "a damaged disk cache entry was removed: \(data.count) bytes, \(info?.length.map { "\($0) written" } ?? "no length recorded")",
                metadata: ["cache.key": "\(CredentialRedaction.redacting(key))", "cache.directory": "\(diskCache.directory.path)"])
            diskCache.removeData(forKey: key)
            return nil
        }
        if diskCache.configuration.honorsSourceExpiry, let expires = info.expires,
            expires <= diskCache.configuration.clock.now().timeIntervalSince1970
        {
            diskCache.removeData(forKey: key)
            return nil
        }
        return DiskEntry(data: data, info: info)
    }

    /// The validators kept with `key`'s disk entry, without reading its bytes.
    private func storedValidators(forKey key: String) async -> CacheValidators? {
        await BlockingIO.run(on: queue) { [diskCache] in Self.entryInfo(diskCache.extendedData(forKey: key))?.validators }
    }

    /// Decodes disk bytes; bytes that are not an image are removed so the next query is a clean miss
    /// (bytes of a format no registered coder handles are kept: a coder may be added later).
    private func decode(_ entry: DiskEntry, key: String, options: ImageDecodeOptions, context: ImageContext) async -> Image? {
        do {
            return try await coders.decodeImage(entry.data, options: options, context: context) { [queue, diskCache] work in
                try await BlockingIO.run(on: queue) {
                    let image = try PipelineMetrics.time(diskCache.configuration.metrics.diskDecodeDuration, work)
                    return Self.addingStoredWarnings(entry.info, to: image)
                }
            }
        } catch let error as ImagePipeError {
            switch error {
            case .badImageData, .unsupportedFormat(.undefined, _):
                await BlockingIO.run(on: queue) { [diskCache] in diskCache.removeData(forKey: key) }
            default:
                break
            }
            return nil
        } catch {
            return nil
        }
    }

    private func promote(_ image: Image, key: String, context: ImageContext) {
        guard (context[.storeCacheType] ?? .all).includesMemory else { return }
        var memoryKey = key
        if image.isThumbnail, !Self.isThumbnailKey(key) {
            let options = image.metadata.decodeOptions
            memoryKey = ImageCacheKey.thumbnailed(
                key, pixelSize: options?.thumbnailPixelSize ?? ImageSize(width: 0, height: 0),
                preserveAspectRatio: options?.preserveAspectRatio ?? true)
        }
        memoryCache.set(image, forKey: memoryKey, cost: image.memoryCost)
    }

    /// SDWebImage's `SDIsThumbnailKey`: the key already carries a thumbnail suffix (whose braces a
    /// URL key holds percent-encoded, so only the name is matched).
    static func isThumbnailKey(_ key: String) -> Bool { key.contains("-Thumbnail(") }

    // MARK: Store, remove, contains, clear

    public func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        guard image != nil || data != nil, cacheType != .none else { return }
        if cacheType.includesMemory, let image {
            memoryCache.set(image, forKey: key, cost: image.memoryCost)
        }
        guard cacheType.includesDisk else { return }
        await BlockingIO.run(on: queue) { [diskCache, coders] in
            // A store that fails is the cache's loss, not the request's: it is logged and the request
            // goes on.
            let (logger, metrics) = (diskCache.configuration.logger, diskCache.configuration.metrics)
            let metadata: Logger.Metadata = ["cache.key": "\(key)", "cache.directory": "\(diskCache.directory.path)"]
            // An animation's own bytes are its source file's; after a transform they would be the
            // untransformed picture under the transformed key, so it is encoded instead.
            let original = image.flatMap { $0.metadata.isTransformed ? nil : $0.animation?.data }
            var bytes = data ?? original
            if bytes == nil, let image, !(context[.imageCoder] ?? coders).canEncode(to: image.storageFormat) {
                // A format no registered coder writes (HEIC): nothing goes on disk under this key,
                // as SDWebImage stores nothing when its encode gives no bytes. Not a failure: the
                // source's own bytes, when the flow had them, are stored under the original key.
                logger.debug("not stored in the disk cache: no coder encodes \(image.storageFormat.identifier)", metadata: metadata)
            } else if bytes == nil, let image {
                do {
                    bytes = try PipelineMetrics.time(metrics.encodeDuration) {
                        try Self.encode(image, coder: context[.imageCoder] ?? coders, options: context[.encodeOptions] ?? ImageEncodeOptions())
                    }
                } catch {
                    metrics.encodeStoreFailures.increment()
                    logger.warning("cannot encode the image for the disk cache: \(error)", metadata: metadata)
                }
            }
            guard let bytes else { return }
            do {
                let facts = Self.extendedData(
                    for: image, length: bytes.count, validators: context[.cacheValidators], now: diskCache.configuration.clock.now())
                try diskCache.setData(bytes, forKey: key, extendedData: facts)
            } catch {
                metrics.writeStoreFailures.increment()
                logger.warning("cannot store the image in the disk cache: \(error)", metadata: metadata)
            }
        }
    }

    public func remove(key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeValue(forKey: key) }
        if cacheType.includesDisk {
            await BlockingIO.run(on: queue) { [diskCache] in diskCache.removeData(forKey: key) }
        }
    }

    public func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if cacheType.includesMemory, memoryCache.contains(key) { return .memory }
        if cacheType.includesDisk, await BlockingIO.run(on: queue, { [diskCache] in diskCache.containsData(forKey: key) }) {
            return .disk
        }
        return .none
    }

    public func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeAll() }
        if cacheType.includesDisk {
            await BlockingIO.run(on: queue) { [diskCache] in diskCache.removeAll() }
        }
    }

    /// Removes expired entries from both levels and trims the disk to its size limit.
    public func removeExpiredAndTrim() async {
        memoryCache.removeExpired()
        await BlockingIO.run(on: queue) { [diskCache] in diskCache.removeExpiredAndTrim() }
    }

    /// Bytes of the disk level's files.
    func totalDiskSize() async -> Int {
        await BlockingIO.run(on: queue) { [diskCache] in diskCache.totalSize }
    }

    /// Entries in the disk level.
    func totalDiskCount() async -> Int {
        await BlockingIO.run(on: queue) { [diskCache] in diskCache.totalCount }
    }

    /// Disk reads waiting on the read in flight for `key` (tests line up concurrent queries with it).
    func diskReadWaiters(forKey key: String) -> Int { diskReads.joinerCount(for: key) }
}
