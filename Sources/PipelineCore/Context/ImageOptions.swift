/// Per-request flags: SDWebImage's `SDWebImageOptions`, bit for bit where the flag makes sense on
/// Linux (the raw values keep SDWebImage's bit numbers so the two are easy to compare).
/// `continueInBackground`, `matchAnimatedImageClass` and `transformVectorImage` have no meaning here
/// and are left out; see the README's "Differences from SDWebImage".
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Ignore the blocked-URL list for this request; a success takes the URL off it.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Download with low priority.
    public static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// Deliver partial images while downloading.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 2)
    /// On a cache hit, answer with the cached image, then revalidate with the server and answer again
    /// only if its copy changed.
    public static let refreshCached = ImageOptions(rawValue: 1 << 3)
    /// Send and store cookies.
    public static let handleCookies = ImageOptions(rawValue: 1 << 5)
    /// Accept any TLS certificate. For testing against self-signed servers only.
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 6)
    /// Download with high priority (ahead of the queue).
    public static let highPriority = ImageOptions(rawValue: 1 << 7)
    /// Targets: show the placeholder only once the load has failed.
    public static let delayPlaceholder = ImageOptions(rawValue: 1 << 8)
    /// Let the transformer run on animated images (skipped by default).
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 9)
    /// Targets: do not set the image; the completion handler does it.
    public static let avoidAutoSetImage = ImageOptions(rawValue: 1 << 10)
    /// Decode within a byte budget (context `.scaleDownLimitBytes`, else the default budget).
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 11)
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
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 19)
    /// Decode every frame of an animation up front (less CPU while playing, more memory).
    public static let preloadAllFrames = ImageOptions(rawValue: 1 << 20)
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

    /// Every named option, with the name the command line's `--option` takes.
    public static let named: [(name: String, option: ImageOptions)] = [
        ("retryFailed", .retryFailed), ("lowPriority", .lowPriority), ("progressiveLoad", .progressiveLoad),
        ("refreshCached", .refreshCached), ("handleCookies", .handleCookies),
        ("allowInvalidSSLCertificates", .allowInvalidSSLCertificates), ("highPriority", .highPriority),
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
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = match.option
    }

    /// The names of the options set, in declaration order.
    public var names: [String] { Self.named.filter { contains($0.option) }.map(\.name) }
}
