import Foundation

extension ImageManager {
    /// The async API's shortcut for a request the flow would answer from the memory cache without
    /// doing anything else: the same result, found without an `ImageTask`, its `AsyncStream`, an
    /// unstructured `Task` or the cache's full query (whose decode options parse the key as a URL
    /// on every call). Profiling memory hits showed those costs at about 95% of a hit's time.
    ///
    /// It answers only when the flow's outcome is certain and has no side effect: a non-empty URL
    /// that is not blocked, a cache that can look up memory synchronously (`ImageMemoryCacheLookup`,
    /// which answers exactly as its `query` would), memory in the query cache type, no options processor (it must run once per request,
    /// inside the flow), and none of the options that make a hit do more (`refreshCached`,
    /// `fromLoaderOnly`, `queryMemoryData`). Anything else — and every miss — returns nil and
    /// takes the full flow.
    func memoryCacheHit(url: URL?, options: ImageOptions, context: ImageContext) -> ImageResult? {
        guard let url, !options.contains(.refreshCached), !options.contains(.fromLoaderOnly),
              !options.contains(.queryMemoryData),
              let cache = (context[.imageCache] ?? self.cache) as? any ImageMemoryCacheLookup,
              (context[.queryCacheType] ?? .all).includesMemory
        else { return nil }
        let settings = settings
        guard settings.optionsProcessor == nil, !url.absoluteString.isEmpty else { return nil }
        if !options.contains(.retryFailed) && blockedURLs.contains(url) { return nil }
        let keys = ImageCacheKeys(url: url, context: context, settings: settings)
        guard let image = cache.memoryImage(forKey: keys.final, options: options, context: context) else { return nil }
        return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
    }
}
