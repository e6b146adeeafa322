import PipelineCore

// The flags of the manager and the targets: SDWebImage's bits, declared here because only the engine
// reads them. The priority and decode flags are read by the core too (`ImageLoadPriority`,
// `ImageDecodeOptions(options:context:cacheKey:)`), which defines their bits.
extension ImageOptions {
    /// Ignore the blocked-URL list for this request; a success takes the URL off it.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Download with low priority.
    public static let lowPriority = ImageOptions.coreLowPriority
    /// Download with high priority (ahead of the queue).
    public static let highPriority = ImageOptions.coreHighPriority
    /// Targets: show the placeholder only once the load has failed.
    public static let delayPlaceholder = ImageOptions(rawValue: 1 << 8)
    /// Let the transformer run on animated images (skipped by default).
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 9)
    /// Targets: do not set the image; the completion handler does it.
    public static let avoidAutoSetImage = ImageOptions(rawValue: 1 << 10)
    /// Decode within a byte budget (context `.scaleDownLimitBytes`, else the default budget).
    public static let scaleDownLargeImages = ImageOptions.coreScaleDownLargeImages
    /// On a memory hit, read the disk bytes too.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 12)
    /// With `queryMemoryData`, read the disk bytes before answering.
    public static let queryMemoryDataSync = ImageOptions(rawValue: 1 << 13)
    /// On a memory miss, read the disk before answering.
    public static let queryDiskDataSync = ImageOptions(rawValue: 1 << 14)
    /// Never load: a cache miss completes with no image and no error.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 15)
    /// Skip the cache query.
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 16)
    /// Targets: run the transition even for images from memory.
    public static let forceTransition = ImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of an animation (also on memory hits).
    public static let decodeFirstFrameOnly = ImageOptions.coreDecodeFirstFrameOnly
    /// Decode every frame of an animation up front (less CPU while playing, more memory).
    public static let preloadAllFrames = ImageOptions.corePreloadAllFrames
    /// Complete only after the cache store, disk write included, has finished.
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 22)
    /// Targets: do not cancel the previous load for the same operation key.
    public static let avoidAutoCancelImage = ImageOptions(rawValue: 1 << 24)
    /// Targets: complete only after the transition has finished.
    public static let waitTransition = ImageOptions(rawValue: 1 << 25)
    /// Targets: show the image the memory cache holds for the URL (its final key, else the original
    /// image) as the placeholder, e.g. while `.refreshCached` revalidates it (SDWebImage's
    /// `sd_setImageWithPreviousCachedImageWithURL`). ImagePipe's own flags count down from bit 31.
    public static let previousCachedImage = ImageOptions(rawValue: 1 << 31)
}

// The `--option` table of the command line: every named option, core, engine and HTTP flags alike.
extension ImageOptions {
    /// Every named option, with the name the command line's `--option` takes.
    package static let named: [(name: String, option: ImageOptions)] = [
        ("retryFailed", .retryFailed), ("lowPriority", .lowPriority), ("progressiveLoad", .progressiveLoad),
        // LoaderHTTP's two flags, defined in the core: ImagePipe does not depend on LoaderHTTP.
        ("refreshCached", .refreshCached), ("handleCookies", .coreHandleCookies),
        ("allowInvalidSSLCertificates", .coreAllowInvalidSSLCertificates), ("highPriority", .highPriority),
        ("delayPlaceholder", .delayPlaceholder), ("transformAnimatedImage", .transformAnimatedImage),
        ("avoidAutoSetImage", .avoidAutoSetImage), ("scaleDownLargeImages", .scaleDownLargeImages),
        ("queryMemoryData", .queryMemoryData), ("queryMemoryDataSync", .queryMemoryDataSync),
        ("queryDiskDataSync", .queryDiskDataSync), ("fromCacheOnly", .fromCacheOnly),
        ("fromLoaderOnly", .fromLoaderOnly), ("forceTransition", .forceTransition),
        ("decodeFirstFrameOnly", .decodeFirstFrameOnly), ("preloadAllFrames", .preloadAllFrames),
        ("waitStoreCache", .waitStoreCache), ("avoidAutoCancelImage", .avoidAutoCancelImage),
        ("waitTransition", .waitTransition), ("previousCachedImage", .previousCachedImage),
    ]

    /// The option with this name (`"retryFailed"`), case-insensitively.
    package init?(name: String) {
        guard let match = Self.named.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = match.option
    }

    /// The names of the options set, in declaration order.
    package var names: [String] { Self.named.filter { contains($0.option) }.map(\.name) }
}
