import CoreMetrics
import Foundation
import ImagePipe
import PipelineCore

/// Everything `ImageServer` does, with defaults a public-facing server survives. The command line
/// (`imagepipe serve`) fills it from flags and `IMAGEPIPE_…` environment variables.
public struct ImageServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (the ready line and `ImageServer.run`'s callback say which).
    public var port = 8080
    /// The port `/metrics` is served on, apart from images (as imgproxy binds its metrics); nil
    /// serves no metrics. The main port never answers `/metrics`: what a server counts is for its
    /// operator, not for whoever can reach its images.
    public var metricsPort: Int?
    /// The address the metrics port listens on; loopback unless a scraper elsewhere needs it.
    public var metricsHost = "127.0.0.1"

    /// Key/salt pairs; a URL signed with any of them is accepted (several at once, to rotate keys).
    public var signingKeys: [URLSigningKey] = []
    /// Accept `insecure` and `_` in place of a signature. Off by default.
    public var allowsUnsigned = false

    /// Named option lists URLs apply with `pr:NAME`; the one named `default` applies to every URL
    /// first. A later preset of the same name replaces an earlier one.
    public var presets: [ProcessingPreset] = []
    /// URLs name presets only: the segment after the signature is `NAME:NAME…` (no `pr:`), and no
    /// other option is read (imgproxy's `IMGPROXY_ONLY_PRESETS`).
    public var onlyPresets = false

    /// Source URL prefixes the server fetches from; empty allows any http(s) source.
    public var allowedSources: [SourcePrefix] = []
    /// Turns off the HTTP loader's SSRF guard, for private origins (and tests on loopback).
    public var allowsPrivateSources = false
    /// The folder `local:///path` sources are read from; nil refuses them.
    public var localRoot: String?
    /// Wraps the loader of http(s) sources (which already applies the SSRF guard and the
    /// allow-list to redirects), so a fleet can share fetched sources: CacheRedis's
    /// `RedisSharedLoader`. It gets the factory of the server's `/metrics`, for the tier's own
    /// metrics. Nil fetches from the origins directly.
    public var sharedSources: (@Sendable (any ImageLoader, any MetricsFactory) -> any ImageLoader)?

    /// Images decoded, transformed and encoded at once, one per worker; as many more requests
    /// fetch their sources meanwhile, so no worker waits on an origin. Default: one per core.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Image requests waiting to start (to fetch their source); past this the answer is 429 with
    /// `Retry-After`.
    public var queueSize = 64
    /// Bytes of a request's target (path and query) answered at all: a longer one is a 414 before
    /// anything is parsed, fetched or stored. 8 KiB, as most servers and proxies in front of one
    /// take; imgproxy URLs with a base64 source rarely need 2.
    public var maxURLLength = 8192
    /// Seconds a request may take, fetch to last byte encoded; past it the answer is 503
    /// (imgproxy's answer to its `IMGPROXY_TIMEOUT`).
    public var requestTimeout: Duration = .seconds(10)
    /// How long a connection may go without a whole request head arriving, or sit idle between
    /// requests, before it is closed (imgproxy reads a request within 10 s): a client sending half
    /// a header, or one byte at a time, holds a connection no longer than this.
    public var idleTimeout: Duration = .seconds(10)
    /// Connections open at once; past it no new connection is accepted (it waits in the listen
    /// backlog) until one closes, so those being served are not harmed. Keep it under the process's
    /// file limit.
    public var maxConnections = 1024

    /// Bytes a source may have (fetched or read); past it the answer is 422.
    public var maxSourceBytes = 32 << 20
    /// Pixels of the source's canvas, checked from the header before decoding (imgproxy: 50 MP).
    public var maxSourcePixels = 50_000_000
    /// Frames of an animation processed; 1 (imgproxy's default) turns animations into their first frame.
    public var maxFrames = 1
    /// Pixels of the result, and of any resized image on the way to it.
    public var maxOutputPixels = 50_000_000
    /// Quality when the URL names none, 1–100 (imgproxy's default).
    public var defaultQuality = 80
    /// Answer JPEG XL, before WebP and AVIF, when the URL names no format and `Accept` names
    /// `image/jxl` (imgproxy's `IMGPROXY_AUTO_JXL`); off by default, as there.
    public var negotiatesJXL = false

    /// `Cache-Control: max-age` of successful answers, in seconds (imgproxy's default: a year).
    public var cacheTTL = 31_536_000
    /// The disk cache folder for sources and results; nil keeps nothing on disk.
    public var cacheDirectory: URL?
    /// Bytes of encoded results kept in memory; 0 keeps none.
    public var memoryLimit = MemoryCacheDefaults.costLimit

    /// How long SIGTERM/SIGINT wait for requests in flight before cancelling them.
    public var shutdownTimeout: Duration = .seconds(30)
    /// How long `/health` answers 503 after SIGTERM/SIGINT while the server still accepts
    /// connections, before the listener closes: a load balancer's health check then sees the
    /// server leave before any connection is refused. Behind one, set it to the check's interval
    /// times its unhealthy threshold; 0 (the default) closes the listener at once.
    public var drainDelay: Duration = .zero

    public init() {}
}

extension ImagePipeError.Limit {
    /// Pixels of a server's result or of a resize on the way to it: `ImageServerConfiguration.maxOutputPixels`.
    public static let outputPixels = Self(name: "outputPixels", setting: "ImageServerConfiguration.maxOutputPixels")
}
