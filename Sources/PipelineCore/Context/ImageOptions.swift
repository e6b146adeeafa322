/// Per-request flags: SDWebImage's `SDWebImageOptions`, bit for bit where the flag makes sense on
/// Linux (the raw values keep SDWebImage's bit numbers so the two are easy to compare).
/// `continueInBackground`, `matchAnimatedImageClass` and `transformVectorImage` have no meaning here
/// and are left out; see the README's "Differences from SDWebImage".
///
/// The core declares the two flags a loader reads; the engine's flags are declared by `ImagePipe`
/// (the manager and targets read them) and the HTTP ones by `LoaderHTTP`, with the same bits.
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Deliver partial images while downloading.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 2)
    /// On a cache hit, answer with the cached image, then revalidate with the server and answer again
    /// only if its copy changed.
    public static let refreshCached = ImageOptions(rawValue: 1 << 3)
}

// The flags declared by ImagePipe and LoaderHTTP that the core itself reads, to build decode
// options, a load's priority and a download's identity: their bits are defined here, once, and
// the public declarations are these values.
extension ImageOptions {
    package static let coreLowPriority = ImageOptions(rawValue: 1 << 1)
    package static let coreHandleCookies = ImageOptions(rawValue: 1 << 5)
    package static let coreAllowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 6)
    package static let coreHighPriority = ImageOptions(rawValue: 1 << 7)
    package static let coreScaleDownLargeImages = ImageOptions(rawValue: 1 << 11)
    package static let coreDecodeFirstFrameOnly = ImageOptions(rawValue: 1 << 19)
    package static let corePreloadAllFrames = ImageOptions(rawValue: 1 << 20)
}
