/// A cache that can answer from memory synchronously: the manager's fast path for plain memory
/// hits, which then need no task, no stream and no async hop (a hit costs about a microsecond
/// instead of tens).
///
/// `memoryImage` must give exactly the image `query` would answer from memory for the same key,
/// options and context — or nil, after which the manager runs its full flow.
public protocol ImageMemoryCacheLookup: ImageCache {
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image?
}

extension DefaultImageCache: ImageMemoryCacheLookup {
    public func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        guard let image = memoryCache.value(forKey: key) else { return nil }
        // What `query` derives from the decode options, without building them (that parses the key).
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly) || context[.decodeOptions]?.firstFrameOnly == true
        return firstFrameOnly ? image.firstFrameOnly() : image
    }
}

extension ImageCachesManager: ImageMemoryCacheLookup {
    /// Answers only when the cache the query policy asks first has the image in memory: that is what
    /// a serial or single-cache query returns, and a memory hit is what a concurrent one gets first.
    public func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        let caches = self.caches
        let first: (any ImageCache)? = switch policies.query {
        case .serial, .concurrent, .highestOnly: caches.last
        case .lowestOnly: caches.first
        }
        return (first as? any ImageMemoryCacheLookup)?.memoryImage(forKey: key, options: options, context: context)
    }
}
