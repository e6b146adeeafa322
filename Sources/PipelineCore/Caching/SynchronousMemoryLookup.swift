/// A cache of this module whose `query` takes its memory answer from `memoryImage`, synchronously:
/// the manager's flow asks it directly for a plain memory hit, which then needs no task, no stream
/// and no async hop (a hit costs about a microsecond instead of tens).
protocol SynchronousMemoryLookup: ImageCache {
    /// The image `query` answers from memory for `key` with these options and context, or nil.
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image?
}

extension DefaultImageCache: SynchronousMemoryLookup {
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        guard let image = memoryCache.value(forKey: key) else { return nil }
        // `ImageDecodeOptions(options:context:)`'s rule for this one field, without building them
        // (that parses the key as a URL).
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly) || context[.decodeOptions]?.firstFrameOnly == true
        return firstFrameOnly ? image.firstFrameOnly() : image
    }
}

extension ImageCachesManager: SynchronousMemoryLookup {
    /// Answers only when the cache the query policy asks first has the image in memory (see
    /// `MemoryRoute`): no lock every thread takes, no cast, no copy of the cache list.
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        memoryRoute.memoryImage(forKey: key, options: options, context: context)
    }
}
