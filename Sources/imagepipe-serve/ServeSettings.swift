import ArgumentParser
import CacheRedis
import CodersAVIF
import Foundation
import ImageServer
import PipelineCore
import ToolSupport

/// Every setting of `imagepipe serve`, one row each, in the order they are applied: the command
/// declares its properties from these rows, `ServeEnvironment` reads their variables,
/// `serverConfiguration()` applies them, the effective-configuration log masks the credentials
/// they mark, and the service's docs table is checked against them. Adding a setting is a row
/// here and the property that names it.
struct ServeSettings: Sendable {
    static let table = ServeSettings()
    /// The rows, in declaration order.
    static let all: [any AnyServeSetting] = Mirror(reflecting: table).children.compactMap { $0.value as? any AnyServeSetting }
    /// Where every default comes from.
    static let defaults = ImageServerConfiguration()

    let host = ServeSetting<String>(
        "host", default: ServeSettings.defaults.host, imgproxy: [.bindHost("IMGPROXY_BIND")], writes: [\.host], help: "Address to listen on."
    ) { command, configuration in configuration.host = command.host }
    let port = ServeSetting<Int>.number("port", \.port, into: \.port, 0...65535, imgproxy: [.bindPort("IMGPROXY_BIND")], help: "Port to listen on, 0 for any free port.")
    let key = ServeSetting<[String]>.list(
        "key", credential: true, writes: [\.signingKeys], imgproxy: [.same("IMGPROXY_KEY")],
        help: "Hex signing key; repeat with --salt for several pairs (key rotation).", valueName: "hex"
    ) { command, configuration in configuration.signingKeys = try command.signingKeys() }
    let salt = ServeSetting<[String]>.list(
        "salt", credential: true, imgproxy: [.same("IMGPROXY_SALT")], help: "Hex salt, one per --key.", valueName: "hex", apply: nil)
    let allowUnsigned = ServeSetting<Bool>.flag(
        "allow-unsigned", \.allowUnsigned, into: \ImageServerConfiguration.allowsUnsigned, help: "Accept unsigned URLs (insecure or _ in place of the signature).")
    let signatureSize = ServeSetting<Int>.number(
        "signature-size", \.signatureSize, into: \.signatureSize, 1...32, imgproxy: [.same("IMGPROXY_SIGNATURE_SIZE")],
        help: "Bytes of the HMAC a signature carries, 1 to 32: shorter signatures are its first bytes.", valueName: "bytes")
    let trustedSignatures = ServeSetting<[String]>.list(
        "trusted-signatures", credential: true, writes: [\.trustedSignatures], imgproxy: [.same("IMGPROXY_TRUSTED_SIGNATURES")],
        help: "A signature accepted whatever the path; repeatable or comma-separated.", valueName: "signature"
    ) { command, configuration in configuration.trustedSignatures = Set(ServeSettings.items(command.trustedSignatures)) }
    let secret = ServeSetting<String?>.optional(
        "secret", credential: true, writes: [\.secret], imgproxy: [.same("IMGPROXY_SECRET")],
        help: "Answer image requests only with Authorization: Bearer SECRET (403 otherwise), for a CDN in front.", valueName: "secret"
    ) { command, configuration in
        guard let secret = command.secret else { return }
        guard !secret.isEmpty, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ValidationError("--secret must be printable ASCII without spaces (it is sent in a header)")
        }
        configuration.secret = secret
    }
    let allowOrigin = ServeSetting<String?>.optional(
        "allow-origin", writes: [\.allowOrigin], imgproxy: [.same("IMGPROXY_ALLOW_ORIGIN")],
        help: "Send Access-Control-Allow-Origin: ORIGIN and Access-Control-Allow-Methods: GET, OPTIONS on every answer.", valueName: "origin"
    ) { command, configuration in
        guard let origin = command.allowOrigin else { return }
        guard !origin.isEmpty, origin.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw ValidationError("--allow-origin must be printable ASCII (it is sent in a header)")
        }
        configuration.allowOrigin = origin
    }
    let allowedProcessingOptions = ServeSetting<[String]>.list(
        "allowed-processing-options", writes: [\.allowedProcessingOptions], imgproxy: [.same("IMGPROXY_ALLOWED_PROCESSING_OPTIONS")],
        help: "An option name URLs may use, as written (resize does not allow rs; presets may use any); repeatable or comma-separated; default: all.",
        valueName: "name"
    ) { command, configuration in configuration.allowedProcessingOptions = Set(ServeSettings.items(command.allowedProcessingOptions)) }
    let baseURL = ServeSetting<String?>.optional(
        "base-url", writes: [\.baseURL], imgproxy: [.same("IMGPROXY_BASE_URL")], help: "Put this in front of every source URL that does not start with it.",
        valueName: "url"
    ) { command, configuration in configuration.baseURL = command.baseURL }
    let pathPrefix = ServeSetting<String?>.optional(
        "path-prefix", writes: [\.pathPrefix], imgproxy: [.same("IMGPROXY_PATH_PREFIX")],
        help: "Serve every route under this path (/img: /img/health, /img/SIGNATURE/…, /img/info/…, /img/purge); signatures cover the path after it.",
        valueName: "/path"
    ) { command, configuration in
        guard let prefix = command.pathPrefix else { return }
        if let problem = PathPrefix.problem(with: prefix) { throw ValidationError("--path-prefix '\(prefix)' \(problem)") }
        configuration.pathPrefix = prefix
    }
    let urlReplacement = ServeSetting<[String]>.list(
        "url-replacement", aliases: ["url-replacements"], writes: [\.urlReplacements], imgproxy: [.urlReplacements],
        help: "Rewrite a source starting with PATTERN (* is any run of characters but /) to start with REPLACEMENT (${1} is what the first * matched), before --base-url and --allow-source; repeatable, in turn.",
        valueName: "PATTERN=REPLACEMENT"
    ) { command, configuration in
        configuration.urlReplacements = try command.urlReplacement.flatMap { $0.split(separator: ";") }.map { definition in
            guard let replacement = URLReplacement(String(definition)) else {
                throw ValidationError("--url-replacement '\(definition)' must be PATTERN=REPLACEMENT, e.g. s3://images/*=https://${1}.cdn.example.com/")
            }
            return replacement
        }
    }
    let useEtag = ServeSetting<Switch>.onOff(
        "use-etag", \.useEtag, into: \.usesETag, imgproxy: [.same("IMGPROXY_USE_ETAG")],
        help: "Send an ETag with each image and answer If-None-Match with 304 Not Modified when it matches.")
    let useLastModified = ServeSetting<Switch>.onOff(
        "use-last-modified", \.useLastModified, into: \.usesLastModified, imgproxy: [.same("IMGPROXY_USE_LAST_MODIFIED")],
        help: "Pass the origin's Last-Modified on and answer If-Modified-Since with 304 Not Modified when the source is no newer.")
    let etagBuster = ServeSetting<String?>.optional(
        "etag-buster", writes: [\.etagBuster], imgproxy: [.same("IMGPROXY_ETAG_BUSTER")],
        help: "Put this in front of every ETag (\"v2/…\"): change it to make every ETag clients and caches hold stale.", valueName: "text"
    ) { command, configuration in
        guard let buster = command.etagBuster else { return }
        // Sent inside an ETag: printable ASCII without spaces or quotes (RFC 9110's etagc).
        guard buster.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) }) else {
            throw ValidationError("--etag-buster must be printable ASCII without spaces or quotes")
        }
        configuration.etagBuster = buster
    }
    let lastModifiedBuster = ServeSetting<String?>.optional(
        "last-modified-buster", writes: [\.lastModifiedBuster], imgproxy: [.same("IMGPROXY_LAST_MODIFIED_BUSTER")],
        help: "Send an older Last-Modified as this time (RFC 3339: 2026-11-29T12:00:00Z).", valueName: "time"
    ) { command, configuration in
        guard let text = command.lastModifiedBuster else { return }
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw ValidationError("--last-modified-buster '\(text)' must be an RFC 3339 time such as 2026-11-29T12:00:00Z")
        }
        configuration.lastModifiedBuster = date
    }
    /// imgproxy's meaning: the quality of JPEG and of the formats `--format-quality` names none
    /// for. Given, it replaces JPEG's default there, so a JPEG quality set for imgproxy still is one.
    let quality = ServeSetting<Int?>.optional(
        "quality", writes: [\.defaultQuality, \.formatQuality], imgproxy: [.same("IMGPROXY_QUALITY")],
        help: "Quality when the URL names none, 1 to 100, of the formats --format-quality has none for "
            + "(default: \(ServeSettings.defaults.defaultQuality)); given, JPEG's too, over its default there.",
        valueName: "1-100"
    ) { command, configuration in
        guard let quality = command.quality else { return }
        configuration.defaultQuality = try ServeSettings.within(quality, 1...100, "quality")
        configuration.formatQuality[ImageFormat.jpeg.identifier] = nil
    }
    let formatQuality = ServeSetting<[String]>.list(
        "format-quality", writes: [\.formatQuality], imgproxy: [.same("IMGPROXY_FORMAT_QUALITY")],
        help: "Quality of one output format when the URL names none, over --quality; repeatable or comma-separated (default: "
            + ServeSettings.defaults.formatQuality.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            + ", each the same perceived quality; given ones replace them, --quality JPEG's).",
        valueName: "format=quality"
    ) { command, configuration in
        for entry in ServeSettings.items(command.formatQuality) {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let format = ImageFormat.named(String(parts[0])), format != .undefined, let value = Int(parts[1]), (1...100).contains(value)
            else {
                throw ValidationError("--format-quality '\(entry)' must be FORMAT=QUALITY, a format name and a whole number from 1 to 100 (webp=79)")
            }
            configuration.formatQuality[format.identifier] = value
        }
    }
    let avifSpeed = ServeSetting<Int>(
        "avif-speed", default: AVIFCoder.defaultSpeed, imgproxy: [.same("IMGPROXY_AVIF_SPEED")], writes: [\.encodeExtras],
        help: "libaom's speed for AVIF, 0 (slowest, smallest files) to 10 (fastest); imgproxy's 0 to 9 mean the same.", valueName: "0-10"
    ) { command, configuration in configuration.encodeExtras[.avifSpeed] = try ServeSettings.within(command.avifSpeed, 0...10, "avif-speed") }
    let autoWebp = ServeSetting<Switch>.onOff(
        "auto-webp", \.autoWebp, into: \.autoWebP, imgproxy: [.same("IMGPROXY_AUTO_WEBP"), .same("IMGPROXY_ENABLE_WEBP_DETECTION")],
        help: "Answer WebP when the URL names no format and Accept names image/webp.")
    let autoAvif = ServeSetting<Switch>.onOff(
        "auto-avif", \.autoAvif, into: \.autoAVIF, imgproxy: [.same("IMGPROXY_AUTO_AVIF"), .same("IMGPROXY_ENABLE_AVIF_DETECTION")],
        help: "Answer AVIF when the URL names no format and Accept names image/avif (before WebP).")
    let enforceWebp = ServeSetting<Switch>.onOff(
        "enforce-webp", \.enforceWebp, into: \.enforceWebP, imgproxy: [.same("IMGPROXY_ENFORCE_WEBP")],
        help: "Answer WebP when Accept names image/webp, even over the URL's format.")
    let enforceAvif = ServeSetting<Switch>.onOff(
        "enforce-avif", \.enforceAvif, into: \.enforceAVIF, imgproxy: [.same("IMGPROXY_ENFORCE_AVIF")],
        help: "Answer AVIF when Accept names image/avif, even over the URL's format (before WebP).")
    let autoJXL = ServeSetting<Bool>.flag(
        "auto-jxl", \.autoJXL, into: \ImageServerConfiguration.negotiatesJXL, imgproxy: [.same("IMGPROXY_AUTO_JXL")],
        help: "Answer JPEG XL when the URL names no format and Accept names image/jxl.")
    let allowSource = ServeSetting<[String]>.list(
        "allow-source", aliases: ["allowed-sources"], writes: [\.allowedSources], imgproxy: [.same("IMGPROXY_ALLOWED_SOURCES")],
        help: "Only fetch sources under this URL prefix (scheme, host and port compared exactly); repeatable or comma-separated.", valueName: "prefix"
    ) { command, configuration in
        configuration.allowedSources = try ServeSettings.items(command.allowSource).map { text in
            guard let prefix = SourcePrefix(text) else {
                throw ValidationError("--allow-source '\(text)' must be an http(s) URL prefix with a host, e.g. https://images.example.com/")
            }
            return prefix
        }
    }
    let preset = ServeSetting<[String]>.list(
        "preset", aliases: ["presets"], writes: [\.presets], imgproxy: [.presets],
        help: "Options URLs apply with pr:NAME, as NAME=OPTION/OPTION; `default` applies to every URL; repeatable or comma-separated.",
        valueName: "NAME=OPTIONS"
    ) { command, configuration in
        configuration.presets = try ServeSettings.items(command.preset).map { definition in
            do {
                return try ProcessingPreset(definition)
            } catch {
                throw ValidationError("--preset: \(error)")
            }
        }
    }
    let onlyPresets = ServeSetting<Bool>(
        "only-presets", default: false, kind: .flag, imgproxy: [.same("IMGPROXY_ONLY_PRESETS")], writes: [\.onlyPresets],
        help: "URLs name presets only: /SIGNATURE/NAME:NAME/SOURCE, no other option is read.", accepts: { Switch(argument: $0) != nil }
    ) { command, configuration in
        if command.onlyPresets && configuration.presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset") }
        configuration.onlyPresets = command.onlyPresets
    }
    let watermark = ServeSetting<String?>.optional(
        "watermark", writes: [\.watermark],
        help: "The image wm: draws over results: a PNG, JPEG, WebP, GIF, AVIF or HEIC file, or an http(s) URL fetched when the server starts.",
        valueName: "path|url"
    ) { command, configuration in configuration.watermark = try command.watermarkSetting()?.image(flag: "--watermark") }
    let watermarkPath = ServeSetting<String?>.optional(
        "watermark-path", formOf: "watermark", imgproxy: [.same("IMGPROXY_WATERMARK_PATH")], help: "imgproxy's name for --watermark with a file.",
        valueName: "path", apply: nil)
    let watermarkURL = ServeSetting<String?>.optional(
        "watermark-url", formOf: "watermark", imgproxy: [.same("IMGPROXY_WATERMARK_URL")], help: "imgproxy's name for --watermark with a URL.",
        valueName: "url", apply: nil)
    let watermarkData = ServeSetting<String?>.optional(
        "watermark-data", formOf: "watermark", imgproxy: [.same("IMGPROXY_WATERMARK_DATA")], help: "The watermark image itself, as base64.",
        valueName: "base64", apply: nil)
    let watermarkOpacity = ServeSetting<Double>(
        "watermark-opacity", default: ServeSettings.defaults.watermarkOpacity, imgproxy: [.same("IMGPROXY_WATERMARK_OPACITY")], writes: [\.watermarkOpacity],
        help: "The watermark's opacity, multiplied by each URL's (0 to 1).", valueName: "0-1"
    ) { command, configuration in
        guard command.watermarkOpacity > 0 && command.watermarkOpacity <= 1 else { throw ValidationError("--watermark-opacity must be a number over 0, up to 1") }
        configuration.watermarkOpacity = command.watermarkOpacity
    }
    let fallbackImage = ServeSetting<String?>.optional(
        "fallback-image", writes: [\.fallbackImage],
        help: "Answer this image (a file, or an http(s) URL fetched when the server starts), processed as the URL asks, when a source cannot be fetched.",
        valueName: "path|url"
    ) { command, configuration in configuration.fallbackImage = try command.fallbackImageSetting()?.image(flag: "--fallback-image") }
    let fallbackImagePath = ServeSetting<String?>.optional(
        "fallback-image-path", formOf: "fallback-image", imgproxy: [.same("IMGPROXY_FALLBACK_IMAGE_PATH")],
        help: "imgproxy's name for --fallback-image with a file.", valueName: "path", apply: nil)
    let fallbackImageURL = ServeSetting<String?>.optional(
        "fallback-image-url", formOf: "fallback-image", imgproxy: [.same("IMGPROXY_FALLBACK_IMAGE_URL")],
        help: "imgproxy's name for --fallback-image with a URL.", valueName: "url", apply: nil)
    let fallbackImageData = ServeSetting<String?>.optional(
        "fallback-image-data", formOf: "fallback-image", imgproxy: [.same("IMGPROXY_FALLBACK_IMAGE_DATA")], help: "The fallback image itself, as base64.",
        valueName: "base64", apply: nil)
    let fallbackImageStatus = ServeSetting<Int>(
        "fallback-image-status", aliases: ["fallback-image-http-code"], default: ServeSettings.defaults.fallbackImageStatus,
        imgproxy: [.same("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE")], writes: [\.fallbackImageStatus],
        help: "The status a fallback image is answered with; 0 keeps the failure's.", valueName: "status"
    ) { command, configuration in
        let status = command.fallbackImageStatus
        guard status == 0 || (200...599).contains(status) else {
            throw ValidationError("--fallback-image-status must be 0 (the failure's status) or a status from 200 to 599")
        }
        configuration.fallbackImageStatus = status
    }
    let fallbackImageTTL = ServeSetting<Int?>.optional(
        "fallback-image-ttl", writes: [\.fallbackImageTTL], imgproxy: [.zeroUnset("IMGPROXY_FALLBACK_IMAGE_TTL", note: "0 is `--ttl`")],
        help: "Cache-Control max-age of fallback answers (default: --ttl).", valueName: "seconds"
    ) { command, configuration in
        configuration.fallbackImageTTL = try command.fallbackImageTTL.map { try ServeSettings.within($0, 0...Int(Int32.max), "fallback-image-ttl") }
    }
    let allowPrivateSources = ServeSetting<Bool>.flag(
        "allow-private-sources", \.allowPrivateSources, into: \ImageServerConfiguration.allowsPrivateSources,
        help: "Let sources resolve to loopback, private and link-local addresses (the SSRF guard is on otherwise).")
    let localRoot = ServeSetting<String?>.optional(
        "local-root", aliases: ["local-filesystem-root"], writes: [\.localRoot], imgproxy: [.same("IMGPROXY_LOCAL_FILESYSTEM_ROOT")],
        help: "Serve local:///path sources from this folder (refused otherwise).", valueName: "dir"
    ) { command, configuration in
        guard let localRoot = command.localRoot else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: localRoot, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("--local-root '\(localRoot)' is not a folder")
        }
        configuration.localRoot = URL(fileURLWithPath: localRoot).standardizedFileURL.path
    }
    let workers = ServeSetting<Int>.number(
        "workers", \.workers, into: \.workers, 1...1024, imgproxy: [.same("IMGPROXY_WORKERS")],
        help: "Images decoded, transformed and encoded at once; as many more fetch their sources meanwhile; by default one per core.")
    let queue = ServeSetting<Int>.number(
        "queue", aliases: ["requests-queue-size"], \.queue, into: \.queueSize, 0...1_000_000,
        imgproxy: [.zero("IMGPROXY_REQUESTS_QUEUE_SIZE", means: "no limit", as: 1_000_000)], help: "Image requests waiting to start before answering 429.",
        valueName: "n")
    let ttl = ServeSetting<Int>.number(
        "ttl", \.ttl, into: \.cacheTTL, 0...Int(Int32.max), imgproxy: [.same("IMGPROXY_TTL")], help: "Cache-Control max-age of images, in seconds.",
        valueName: "seconds")
    let cacheDir = ServeSetting<String?>.optional(
        "cache-dir", writes: [\.cacheDirectory], help: "Keep sources and results on disk in this folder (default: memory only).", valueName: "dir"
    ) { command, configuration in
        if command.noCache && command.cacheDir != nil { throw ValidationError("--cache-dir and --no-cache cannot be used together") }
        configuration.cacheDirectory = command.cacheDir.map { URL(fileURLWithPath: $0).standardizedFileURL }
    }
    let noCache = ServeSetting<Bool>.flag("no-cache", \.noCache, into: nil, help: "Keep nothing, neither in memory nor on disk.")
    let redis = ServeSetting<String?>.optional(
        "redis", credential: true, writesNamed: ["sharedSources", "sharedResults"],
        help: "Share fetched sources and rendered results with every server using this Redis; what they all miss is fetched and rendered once (password also from $IMAGEPIPE_REDIS_PASSWORD).",
        valueName: "redis://[:password@]host:port[/db]", apply: nil)
    let redisLockWait = ServeSetting<Int?>.optional(
        "redis-lock-wait", help: "Seconds a source every server misses waits for the one fetching it before fetching itself (default 5).",
        valueName: "seconds", apply: nil)
    let redisMaxResultBytes = ServeSetting<ByteCount?>.optional(
        "redis-max-result-bytes",
        help: "Results larger than this stay on the server that rendered them; smaller ones are shared through --redis (default: \(ByteCount(RedisCacheConfiguration().maxResultBytes))).",
        valueName: "bytes", apply: nil)
    let adminSecret = ServeSetting<String?>.optional(
        "admin-secret", credential: true, writes: [\.adminSecret],
        help: "Answer POST /purge (url= or prefix=) with Authorization: Bearer SECRET, fleet-wide through --redis (404 without).", valueName: "secret",
        apply: nil)
    let memoryLimit = ServeSetting<ByteCount>.bytes(
        "memory-limit", \.memoryLimit, into: \.memoryLimit, 0...Int.max,
        help: "Bytes of results kept in memory; by default a fifth of RAM or of the cgroup limit (0 with --no-cache).")
    let maxWorkingMemory = ServeSetting<ByteCount>.bytes(
        "max-working-memory", \.maxWorkingMemory, into: \.maxWorkingMemory, 1 << 20...Int.max,
        help: "Bytes the images being processed may hold together, each at its estimate; more waits, or answers 503; by default half of RAM or of the cgroup limit.")
    let metricsPort = ServeSetting<Int?>.optional(
        "metrics-port", writes: [\.metricsPort], imgproxy: [.bindPort("IMGPROXY_PROMETHEUS_BIND")],
        help: "Serve /metrics on this port (default: no metrics; the main port never serves them).", valueName: "port"
    ) { command, configuration in configuration.metricsPort = try command.metricsPort.map { try ServeSettings.within($0, 0...65535, "metrics-port") } }
    let metricsHost = ServeSetting<String>(
        "metrics-host", default: ServeSettings.defaults.metricsHost, imgproxy: [.bindHost("IMGPROXY_PROMETHEUS_BIND")], writes: [\.metricsHost],
        help: "The address the metrics port listens on.", valueName: "addr"
    ) { command, configuration in configuration.metricsHost = command.metricsHost }
    let maxURLLength = ServeSetting<ByteCount>.bytes(
        "max-url-length", \.maxURLLength, into: \.maxURLLength, 256...(1 << 20), help: "Bytes of a request's path and query; longer is 414.")
    let idleTimeout = ServeSetting<Int>.seconds(
        "idle-timeout", aliases: ["keep-alive-timeout"], \.idleTimeout, into: \.idleTimeout, 1...3600,
        imgproxy: [.zero("IMGPROXY_KEEP_ALIVE_TIMEOUT", means: "no keep-alive", as: 1), .same("IMGPROXY_READ_REQUEST_TIMEOUT")],
        help: "Seconds a connection may take to send a request head, or sit idle between requests, before it is closed.")
    let maxConnections = ServeSetting<Int>.number(
        "max-connections", aliases: ["max-clients"], \.maxConnections, into: \.maxConnections, 1...1_000_000,
        imgproxy: [.zero("IMGPROXY_MAX_CLIENTS", means: "no limit", as: 1_000_000)], help: "Connections open at once; more wait to be accepted.",
        valueName: "n")
    let shutdownTimeout = ServeSetting<Int>.seconds(
        "shutdown-timeout", \.shutdownTimeout, into: \.shutdownTimeout, 0...86400, imgproxy: [.same("IMGPROXY_GRACEFUL_STOP_TIMEOUT")],
        help: "Seconds SIGTERM/SIGINT wait for requests in flight.")
    let drainDelay = ServeSetting<Int>.seconds(
        "drain-delay", \.drainDelay, into: \.drainDelay, 0...3600,
        help: "Seconds /health answers 503 after SIGTERM/SIGINT before the listener closes (behind a load balancer: its check interval times its threshold).")
    let requestTimeout = ServeSetting<Int>.seconds(
        "request-timeout", aliases: ["timeout"], \.requestTimeout, into: \.requestTimeout, 1...3600, imgproxy: [.same("IMGPROXY_TIMEOUT")],
        help: "Seconds one request may take before answering 503.")
    let maxSourceBytes = ServeSetting<ByteCount>.bytes(
        "max-source-bytes", aliases: ["max-src-file-size"], \.maxSourceBytes, into: \.maxSourceBytes, 1...(1 << 40),
        imgproxy: [.zero("IMGPROXY_MAX_SRC_FILE_SIZE", means: "no limit", as: 1 << 40)], help: "Largest source, in bytes; larger answers 422.")
    let maxSourcePixels = ServeSetting<Int>.number(
        "max-source-pixels", \.maxSourcePixels, into: \.maxSourcePixels, 1...(1 << 40), imgproxy: [.megapixels("IMGPROXY_MAX_SRC_RESOLUTION")],
        help: "Most pixels a source may have; more answers 422.", valueName: "pixels")
    let maxSrcResolution = ServeSetting<Double?>.optional(
        "max-src-resolution", formOf: "max-source-pixels", writes: [\.maxSourcePixels], help: "imgproxy's form of --max-source-pixels, in megapixels.",
        valueName: "megapixels"
    ) { command, configuration in
        guard let megapixels = command.maxSrcResolution else { return }
        guard megapixels > 0 && megapixels <= 1_000_000 else { throw ValidationError("--max-src-resolution must be a number of megapixels over 0") }
        configuration.maxSourcePixels = try ServeSettings.within(Int((megapixels * 1_000_000).rounded()), 1...(1 << 40), "max-source-pixels")
    }
    let maxFrames = ServeSetting<Int>.number(
        "max-frames", aliases: ["max-animation-frames"], \.maxFrames, into: \.maxFrames, 1...ImageDecodeOptions.defaultMaxFrames,
        imgproxy: [.same("IMGPROXY_MAX_ANIMATION_FRAMES")], help: "Animation frames processed (1: animations become their first frame); more answers 422.",
        valueName: "n")
    let maxOutputPixels = ServeSetting<Int>.number(
        "max-output-pixels", \.maxOutputPixels, into: \.maxOutputPixels, 1...(1 << 40), help: "Most pixels a result may have; more answers 422.",
        valueName: "pixels")
    let maxAnimationFrameResolution = ServeSetting<Double>(
        "max-animation-frame-resolution", default: 0, imgproxy: [.same("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION")], writes: [\.maxAnimationFramePixels],
        help: "Most megapixels of each frame of an animation, its frames then not summed against --max-source-pixels; 0 sums them.",
        valueName: "megapixels"
    ) { command, configuration in
        let megapixels = command.maxAnimationFrameResolution
        guard megapixels >= 0 && megapixels <= 1_000_000 else { throw ValidationError("--max-animation-frame-resolution must be a number of megapixels, 0 or more") }
        configuration.maxAnimationFramePixels = Int((megapixels * 1_000_000).rounded())
    }
    let maxResultDimension = ServeSetting<Int>.number(
        "max-result-dimension", \.maxResultDimension, into: \.maxResultDimension, 0...Int(Int32.max), imgproxy: [.same("IMGPROXY_MAX_RESULT_DIMENSION")],
        help: "Scale results down to fit this many pixels on their longest side, padding and extend included; 0 for no limit.", valueName: "pixels")
    let allowSecurityOptions = ServeSetting<Bool>(
        "allow-security-options", default: false, kind: .flag, imgproxy: [.same("IMGPROXY_ALLOW_SECURITY_OPTIONS")], writes: [\.allowsSecurityOptions],
        help: "Let URLs and presets override the source and result limits with msr, msfs, maf, mafr and mrd (403 otherwise).",
        accepts: { Switch(argument: $0) != nil }
    ) { command, configuration in
        if !command.allowSecurityOptions, let preset = configuration.presets.first(where: { !$0.securityOptions.isEmpty }) {
            throw ValidationError("--preset \(preset.name) sets \(preset.securityOptions.joined(separator: ", ")), a security option: give --allow-security-options")
        }
        configuration.allowsSecurityOptions = command.allowSecurityOptions
    }
    let stripMetadata = ServeSetting<Switch>.onOff(
        "strip-metadata", \.stripMetadata, into: \.stripsMetadata, imgproxy: [.same("IMGPROXY_STRIP_METADATA")],
        help: "What sm: is when a URL and its presets do not say: drop EXIF and XMP.")
    let keepCopyright = ServeSetting<Switch>.onOff(
        "keep-copyright", \.keepCopyright, into: \.keepsCopyright, imgproxy: [.same("IMGPROXY_KEEP_COPYRIGHT")],
        help: "What kcr: is when a URL and its presets do not say: keep the copyright fields while stripping.")
    let stripColorProfile = ServeSetting<Switch>.onOff(
        "strip-color-profile", \.stripColorProfile, into: \.stripsColorProfile, imgproxy: [.same("IMGPROXY_STRIP_COLOR_PROFILE")],
        help: "What scp: is when a URL and its presets do not say: convert to sRGB and drop the profile.")
    let autoRotate = ServeSetting<Switch>.onOff(
        "auto-rotate", \.autoRotate, into: \.autoRotates, imgproxy: [.same("IMGPROXY_AUTO_ROTATE")],
        help: "What ar: is when a URL and its presets do not say: turn images upright by their EXIF orientation.")
    let enforceThumbnail = ServeSetting<Switch>(
        "enforce-thumbnail", default: Switch(ServeSettings.defaults.enforcesThumbnail), imgproxy: [.same("IMGPROXY_ENFORCE_THUMBNAIL")],
        writes: [\.enforcesThumbnail, \.embeddedThumbnailExtras],
        help: "What eth: is when a URL and its presets do not say: use the thumbnail embedded in HEIC sources."
    ) { command, configuration in
        configuration.enforcesThumbnail = command.enforceThumbnail.isOn
        // What eth: asks of the tool's coders, on or off (a URL may say eth:1).
        configuration.embeddedThumbnailExtras = PipelineSetup.embeddedThumbnailExtras
    }
    let preserveHDR = ServeSetting<Switch>.onOff(
        "preserve-hdr", \.preserveHDR, into: \.preservesHDR, imgproxy: [.same("IMGPROXY_PRESERVE_HDR")],
        help: "What ph: is when a URL and its presets do not say: keep high bit depth.")
    let returnAttachment = ServeSetting<Switch>.onOff(
        "return-attachment", \.returnAttachment, into: \.returnsAttachment, imgproxy: [.same("IMGPROXY_RETURN_ATTACHMENT")],
        help: "What att: is when a URL and its presets do not say: answer Content-Disposition: attachment.")
    let skipProcessingFormats = ServeSetting<[String]>.list(
        "skip-processing-formats", writes: [\.skipProcessingFormats], imgproxy: [.same("IMGPROXY_SKIP_PROCESSING_FORMATS")],
        help: "Answer sources of this format as they are, as skp: does (a URL's skp: adds to them); repeatable or comma-separated.", valueName: "format"
    ) { command, configuration in
        configuration.skipProcessingFormats = try ServeSettings.items(command.skipProcessingFormats).map { name in
            guard let format = ImageServerConfiguration.imgproxyFormatName(name) else {
                throw ValidationError("--skip-processing-formats '\(name)' is not a format name (\(ImageServerConfiguration.imgproxyFormatNames.joined(separator: " ")))")
            }
            return format
        }
    }
    let otelEndpoint = ServeSetting<String?>.optional(
        "otel-endpoint", help: "Export traces over OTLP/HTTP to this collector (default: no traces).", valueName: "http://host:4318", apply: nil)
    let logFormat = ServeSetting<LogFormat>(
        "log-format", default: .text, imgproxy: [.logFormat], help: "How log lines are written on standard error: text, or json (one object per line).",
        apply: nil)
    let quiet = ServeSetting<Bool>.flag(
        "quiet", \.quiet, into: nil, imgproxy: [.logLevel(turnsOn: ["error", "warn"])], help: "Log less: warnings and errors only, no access log.")
    let verbose = ServeSetting<Bool>.flag(
        "verbose", short: "v", \.verbose, into: nil, imgproxy: [.logLevel(turnsOn: ["debug"])], formOf: "quiet", help: "Log more: the pipeline's debug lines too.")

    /// `value` when `range` holds it; otherwise a usage error naming the flag and the range.
    static func within(_ value: Int, _ range: ClosedRange<Int>, _ flag: String) throws -> Int {
        guard range.contains(value) else {
            throw ValidationError("--\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The values of a repeatable flag, each also split at commas (imgproxy's lists are comma-separated).
    static func items(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `host` for `\ImageServerConfiguration.host`.
    static func propertyName(_ keyPath: AnyKeyPath) -> String {
        String(String(describing: keyPath).split(separator: ".").last ?? "")
    }
}
