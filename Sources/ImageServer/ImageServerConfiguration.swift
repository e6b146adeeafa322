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
    /// Bytes of the HMAC a signature carries, 1–32: a shorter signature is the MAC's first bytes
    /// (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
    public var signatureSize = 32
    /// Signatures accepted as they are, whatever the path (imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`).
    public var trustedSignatures: Set<String> = []
    /// Every request but `/health`, `HEAD` and `OPTIONS` must carry `Authorization: Bearer` this,
    /// else 403 (imgproxy's `IMGPROXY_SECRET`, for a CDN in front); nil asks for nothing.
    public var secret: String?
    /// `Access-Control-Allow-Origin` on every answer, with `Access-Control-Allow-Methods: GET,
    /// OPTIONS` (imgproxy's `IMGPROXY_ALLOW_ORIGIN`); nil sends no CORS headers.
    public var allowOrigin: String?
    /// Every route of the main port lives under this (`/img` answers `/img/health` and
    /// `/img/SIG/…`), taken off before the signature is checked; empty serves from `/`
    /// (imgproxy's `IMGPROXY_PATH_PREFIX`). It starts with `/`; a trailing `/` is ignored.
    public var pathPrefix = ""

    /// Named option lists URLs apply with `pr:NAME`; the one named `default` applies to every URL
    /// first. A later preset of the same name replaces an earlier one.
    public var presets: [ProcessingPreset] = []
    /// The option names URLs may use, each as written (`resize` does not allow `rs`); presets may
    /// use any. Empty allows every option (imgproxy's `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`).
    public var allowedProcessingOptions: Set<String> = []
    /// Put in front of every source URL that does not already start with it (imgproxy's
    /// `IMGPROXY_BASE_URL`): URLs then carry `images/cat.jpg` for `https://cdn.example.com/images/cat.jpg`.
    public var baseURL: String?
    /// Rewrites of source URLs, each applied in turn to the decoded source before `baseURL` and
    /// the allow-list (imgproxy's `IMGPROXY_URL_REPLACEMENTS`).
    public var urlReplacements: [URLReplacement] = []
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

    // Fleet: rendered results shared through the same tier, and purges.
    /// The tier results are shared through, made with the factory of the server's `/metrics`
    /// (`imagepipe serve --redis` puts CacheRedis there). Each server keeps its memory tier in
    /// front; every request reads its source's purge generation from the tier first. Nil keeps
    /// results to this server.
    package var sharedResults: (@Sendable (any MetricsFactory) -> any SharedResultStore)?
    /// `POST /purge` answers requests carrying `Authorization: Bearer` this (403 otherwise); nil
    /// answers it 404. Purges go through `sharedResults`.
    public var adminSecret: String?

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
    /// Pixels of each frame of an animation, when over 0: then an animation's frames are not
    /// summed against `maxSourcePixels` (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`).
    public var maxAnimationFramePixels = 0
    /// The longest side of a result: a larger one is scaled down to fit, padding and extend
    /// included; 0 for no limit (imgproxy's `IMGPROXY_MAX_RESULT_DIMENSION`).
    public var maxResultDimension = 0
    /// Let URLs override the source and result limits above with imgproxy's security options
    /// (`msr`, `msfs`, `maf`, `mafr`, `mrd`); off, they answer 403 (`IMGPROXY_ALLOW_SECURITY_OPTIONS`).
    /// `msfs` stays within `maxSourceBytes`, the most this server fetches. Off, a URL using a
    /// preset that carries one is refused as if it carried the option itself.
    public var allowsSecurityOptions = false
    /// Pixels of the result, and of any resized image on the way to it.
    public var maxOutputPixels = 50_000_000
    /// Bytes the requests being processed may hold together, each counted at its estimate before it
    /// starts (the decoder's estimate from the header, the output's pixels and the encoder's
    /// buffers). A request that does not fit waits for others to finish, within its timeout; one
    /// larger than the whole budget answers 503. Default: half of RAM or of the cgroup limit.
    public var maxWorkingMemory = DecodeMemoryBudget.defaultLimitBytes
    // What URLs' options start from, before `--preset default=…` and the URL's own (imgproxy's
    // `IMGPROXY_STRIP_METADATA` and the rest).
    /// `sm:`: drop EXIF and XMP.
    public var stripsMetadata = true
    /// `kcr:`: keep the copyright fields while stripping.
    public var keepsCopyright = true
    /// `scp:`: convert to sRGB and drop the colour profile.
    public var stripsColorProfile = true
    /// `ar:`: turn images upright by their EXIF orientation.
    public var autoRotates = true
    /// `eth:`: use the thumbnail embedded in HEIC sources (with `embeddedThumbnailExtras`).
    public var enforcesThumbnail = false
    /// What `eth:` adds to a decode's extras: the coders' keys for decoding a source's embedded
    /// thumbnail (CodersHEIF's `.heifEmbeddedThumbnail`, which `imagepipe serve` sets). Empty,
    /// `eth:` changes nothing.
    public var embeddedThumbnailExtras = ImageCodingExtras()
    /// `ph:`: keep high bit depth.
    public var preservesHDR = false
    /// `att:`: answer `Content-Disposition: attachment`.
    public var returnsAttachment = false
    /// `skp:`: source formats answered as they are (imgproxy's names: `png`, `svg`…); a URL's
    /// `skp:` adds to them.
    public var skipProcessingFormats: [String] = []

    /// Quality when the URL names none and `formatQuality` has none for the format, 1–100
    /// (imgproxy's default).
    public var defaultQuality = 80
    /// Quality per output format (`webp`, `avif`, `jpeg`…), when the URL names none for it
    /// (`q:`, `fq:`); before `defaultQuality`. The defaults give each format the same perceived
    /// quality, SSIMULACRA2 about 75 on photos (Benchmarks/rate-quality-RESULTS.md), where
    /// imgproxy's numbers (`webp=79,avif=63,jxl=77`, JPEG at 80) reach about 73 to 88. Remove `jpeg`
    /// for `defaultQuality` to be JPEG's, as `imagepipe serve --quality` does.
    public var formatQuality: [String: Int] = ImageServerConfiguration.perceivedQualityDefaults
    /// `formatQuality`'s defaults: the quality at which each format reaches SSIMULACRA2 about 75.
    package static let perceivedQualityDefaults = ["jpeg": 65, "webp": 82, "avif": 63, "jxl": 72]
    /// Coder options every encode gets (AVIF's speed, `ImageCodingExtras.Key.avifSpeed`, is
    /// `imagepipe serve --avif-speed`); a coder's own default where none is set.
    public var encodeExtras = ImageCodingExtras()
    /// Answer WebP or AVIF to a client whose `Accept` names it, when the URL names no format
    /// (imgproxy's `IMGPROXY_AUTO_WEBP`, `IMGPROXY_AUTO_AVIF`); AVIF first when both are accepted.
    public var autoWebP = true
    public var autoAVIF = true
    /// As `autoWebP` and `autoAVIF`, even when the URL names a format (`IMGPROXY_ENFORCE_WEBP`, `_AVIF`).
    public var enforceWebP = false
    public var enforceAVIF = false

    /// The image `wm:` draws over results (its first frame, upright); nil makes `wm:` do nothing,
    /// as imgproxy without `IMGPROXY_WATERMARK_PATH` does.
    public var watermark: Image?
    /// The watermark's opacity, 0–1, multiplied by each URL's (imgproxy's `IMGPROXY_WATERMARK_OPACITY`).
    public var watermarkOpacity = 1.0
    /// The image answered, processed by the URL's options, when the source cannot be fetched
    /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_PATH`); nil answers the failure.
    public var fallbackImage: Image?
    /// The status the fallback image is answered with; 0 keeps the failure's (imgproxy's
    /// `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`).
    public var fallbackImageStatus = 200
    /// `Cache-Control: max-age` of fallback answers, in seconds; nil uses `cacheTTL`
    /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_TTL`).
    public var fallbackImageTTL: Int?
    /// Answer JPEG XL, before WebP and AVIF, when the URL names no format and `Accept` names
    /// `image/jxl` (imgproxy's `IMGPROXY_AUTO_JXL`); off by default, as there.
    public var negotiatesJXL = false

    /// Send an ETag with each image (from the source's validator and everything that shapes the
    /// result) and answer a matching `If-None-Match` with 304 (imgproxy's `IMGPROXY_USE_ETAG`).
    public var usesETag = true
    /// Pass the origin's `Last-Modified` on, and answer an `If-Modified-Since` it is not newer than
    /// with 304 (imgproxy's `IMGPROXY_USE_LAST_MODIFIED`). `raw:1` forwards the client's
    /// `If-None-Match` and `If-Modified-Since` to the origin and passes its 304 on.
    public var usesLastModified = true
    /// Put in front of every ETag (`"BUSTER/…"`): changing it makes every ETag clients and caches
    /// hold a miss at once (imgproxy's `IMGPROXY_ETAG_BUSTER`). Empty sends the ETags as they are.
    public var etagBuster = ""
    /// A `Last-Modified` older than this is sent as this, so that a change affecting every image
    /// shows to `If-Modified-Since` (imgproxy's `IMGPROXY_LAST_MODIFIED_BUSTER`).
    public var lastModifiedBuster: Date?

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
    /// Bytes the requests being processed hold together: `ImageServerConfiguration.maxWorkingMemory`.
    public static let workingMemory = Self(name: "workingMemory", setting: "ImageServerConfiguration.maxWorkingMemory")
}

extension ImageServerConfiguration {
    /// imgproxy's format names, as its URLs and settings write them (`jpg`, `png`…).
    package static var imgproxyFormatNames: [String] { OptionArguments.formatNames.sorted() }

    /// `name` as the server reads it (`jpg` is `jpeg`); nil for a name imgproxy does not know.
    package static func imgproxyFormatName(_ name: String) -> String? {
        OptionArguments.formatNames.contains(name) ? (name == "jpg" ? "jpeg" : name) : nil
    }
}
