import ArgumentParser
import CacheRedis
import Foundation
import ImageServer
import Logging
import PipelineCore
import ServiceLifecycle
import Synchronization

/// `imagepipe serve`: the image service. Each property is one setting: its name is the flag and
/// its initial value (from `ImageServerConfiguration()`) the default help shows;
/// `serverConfiguration()` checks its range and applies it; `ServeEnvironment` derives its
/// `IMAGEPIPE_…` variable from the name.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images over HTTP with imgproxy's URL grammar and signatures.",
        discussion: """
            URLs: /SIGNATURE/OPTIONS/plain/SOURCE@EXT or /SIGNATURE/OPTIONS/BASE64URL_SOURCE.EXT.
            Every flag can also be set by an environment variable: --allow-source as
            IMAGEPIPE_ALLOW_SOURCE, and so on (repeatable flags take comma-separated lists;
            IMAGEPIPE_KEY and IMAGEPIPE_SALT keep keys out of the process list). A flag wins.
            """
    )

    private static let defaults = ImageServerConfiguration()
    private static func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    @Option(help: "Address to listen on.") var host = defaults.host
    @Option(help: "Port to listen on, 0 for any free port.") var port = defaults.port
    @Option(help: ArgumentHelp("Hex signing key; repeat with --salt for several pairs (key rotation).", valueName: "hex")) var key: [String] = []
    @Option(help: ArgumentHelp("Hex salt, one per --key.", valueName: "hex")) var salt: [String] = []
    @Flag(help: "Accept unsigned URLs (insecure or _ in place of the signature).") var allowUnsigned = false
    @Option(help: ArgumentHelp("Bytes of the HMAC a signature carries, 1 to 32: shorter signatures are its first bytes.", valueName: "bytes"))
    var signatureSize = defaults.signatureSize
    @Option(help: ArgumentHelp("A signature accepted whatever the path; repeatable or comma-separated.", valueName: "signature"))
    var trustedSignatures: [String] = []
    @Option(help: ArgumentHelp("Answer image requests only with Authorization: Bearer SECRET (403 otherwise), for a CDN in front.", valueName: "secret"))
    var secret: String?
    @Option(help: ArgumentHelp("Send Access-Control-Allow-Origin: ORIGIN and Access-Control-Allow-Methods: GET, OPTIONS on every answer.", valueName: "origin"))
    var allowOrigin: String?
    @Option(help: ArgumentHelp("An option name URLs may use, as written (resize does not allow rs; presets may use any); repeatable or comma-separated; default: all.", valueName: "name"))
    var allowedProcessingOptions: [String] = []
    @Option(help: ArgumentHelp("Put this in front of every source URL that does not start with it.", valueName: "url")) var baseURL: String?
    @Option(help: ArgumentHelp("Quality when the URL names none, 1 to 100.", valueName: "1-100")) var quality = defaults.defaultQuality
    @Option(
        help: ArgumentHelp(
            "Quality of one output format when the URL names none, over --quality; repeatable or comma-separated (default: \(defaults.formatQuality.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")), which given ones replace).",
            valueName: "format=quality"))
    var formatQuality: [String] = []
    @Option(help: "Answer WebP when the URL names no format and Accept names image/webp.") var autoWebp = Switch(defaults.autoWebP)
    @Option(help: "Answer AVIF when the URL names no format and Accept names image/avif (before WebP).") var autoAvif = Switch(defaults.autoAVIF)
    @Option(help: "Answer WebP when Accept names image/webp, even over the URL's format.") var enforceWebp = Switch(defaults.enforceWebP)
    @Option(help: "Answer AVIF when Accept names image/avif, even over the URL's format (before WebP).") var enforceAvif = Switch(defaults.enforceAVIF)
    @Option(help: ArgumentHelp("Only fetch sources under this URL prefix (scheme, host and port compared exactly); repeatable.", valueName: "prefix"))
    var allowSource: [String] = []
    @Option(help: ArgumentHelp("Options URLs apply with pr:NAME, as NAME=OPTION/OPTION; `default` applies to every URL; repeatable.", valueName: "NAME=OPTIONS"))
    var preset: [String] = []
    @Flag(help: "URLs name presets only: /SIGNATURE/NAME:NAME/SOURCE, no other option is read.") var onlyPresets = false
    @Option(help: ArgumentHelp("The image wm: draws over results: a PNG, JPEG, WebP, GIF, AVIF or HEIC file, or an http(s) URL fetched when the server starts.", valueName: "path|url"))
    var watermark: String?
    @Option(help: ArgumentHelp("The watermark's opacity, multiplied by each URL's (0 to 1).", valueName: "0-1")) var watermarkOpacity = defaults.watermarkOpacity
    @Option(help: ArgumentHelp("Answer this image (a file, or an http(s) URL fetched when the server starts), processed as the URL asks, when a source cannot be fetched.", valueName: "path|url"))
    var fallbackImage: String?
    @Option(help: "The status a fallback image is answered with; 0 keeps the failure's.") var fallbackImageStatus = defaults.fallbackImageStatus
    @Option(help: ArgumentHelp("Cache-Control max-age of fallback answers (default: --ttl).", valueName: "seconds")) var fallbackImageTTL: Int?
    @Flag(help: "Let sources resolve to loopback, private and link-local addresses (the SSRF guard is on otherwise).") var allowPrivateSources = false
    @Option(help: ArgumentHelp("Serve local:///path sources from this folder (refused otherwise).", valueName: "dir")) var localRoot: String?
    @Option(help: "Images decoded, transformed and encoded at once; as many more fetch their sources meanwhile; by default one per core.")
    var workers = defaults.workers
    @Option(help: "Image requests waiting to start before answering 429.") var queue = defaults.queueSize
    @Option(help: ArgumentHelp("Cache-Control max-age of images, in seconds.", valueName: "seconds")) var ttl = defaults.cacheTTL
    @Option(help: ArgumentHelp("Keep sources and results on disk in this folder (default: memory only).", valueName: "dir")) var cacheDir: String?
    @Flag(help: "Keep nothing, neither in memory nor on disk.") var noCache = false
    @Option(
        help: ArgumentHelp(
            "Share fetched sources with every server using this Redis; a source they all miss is fetched once (password also from $IMAGEPIPE_REDIS_PASSWORD).",
            valueName: "redis://[:password@]host:port[/db]"))
    var redis: String?
    @Option(help: ArgumentHelp("Seconds a source every server misses waits for the one fetching it before fetching itself (default 5).", valueName: "seconds"))
    var redisLockWait: Int?
    // Fleet: results shared through --redis, and purges (ImageServerConfiguration.adminSecret,
    // RedisCacheConfiguration.maxResultBytes; applied in `fleetSettings`).
    @Option(
        help: ArgumentHelp(
            "Results larger than this stay on the server that rendered them; smaller ones are shared through --redis (default: \(ByteCount(RedisCacheConfiguration().maxResultBytes)), 1 MiB).",
            valueName: "bytes"))
    var redisMaxResultBytes: ByteCount?
    @Option(help: ArgumentHelp("Answer POST /purge (url= or prefix=) with Authorization: Bearer SECRET, fleet-wide through --redis (404 without).", valueName: "secret"))
    var adminSecret: String?

    @Option(help: ArgumentHelp("Bytes of results kept in memory (default: a fifth of RAM or of the cgroup limit).", valueName: "bytes"))
    var memoryLimit = ByteCount(defaults.memoryLimit)
    @Option(help: ArgumentHelp("Bytes the images being processed may hold together, each at its estimate; more waits, or answers 503 (default: half of RAM or of the cgroup limit).", valueName: "bytes"))
    var maxWorkingMemory = ByteCount(defaults.maxWorkingMemory)
    @Option(help: "Serve /metrics on this port (default: no metrics; the main port never serves them).") var metricsPort: Int?
    @Option(help: ArgumentHelp("The address the metrics port listens on.", valueName: "addr")) var metricsHost = defaults.metricsHost
    @Option(help: ArgumentHelp("Bytes of a request's path and query; longer is 414.", valueName: "bytes")) var maxURLLength = ByteCount(defaults.maxURLLength)
    @Option(help: ArgumentHelp("Seconds a connection may take to send a request head, or sit idle between requests, before it is closed.", valueName: "seconds"))
    var idleTimeout = seconds(defaults.idleTimeout)
    @Option(help: ArgumentHelp("Connections open at once; more wait to be accepted.", valueName: "n")) var maxConnections = defaults.maxConnections
    @Option(help: ArgumentHelp("Seconds SIGTERM/SIGINT wait for requests in flight.", valueName: "seconds")) var shutdownTimeout = seconds(defaults.shutdownTimeout)
    @Option(help: ArgumentHelp("Seconds /health answers 503 after SIGTERM/SIGINT before the listener closes (behind a load balancer: its check interval times its threshold).", valueName: "seconds"))
    var drainDelay = seconds(defaults.drainDelay)
    @Option(help: ArgumentHelp("Seconds one request may take before answering 503.", valueName: "seconds")) var requestTimeout = seconds(defaults.requestTimeout)
    @Option(help: ArgumentHelp("Largest source, in bytes; larger answers 422.", valueName: "bytes")) var maxSourceBytes = ByteCount(defaults.maxSourceBytes)
    @Option(help: ArgumentHelp("Most pixels a source may have; more answers 422.", valueName: "pixels")) var maxSourcePixels = defaults.maxSourcePixels
    @Option(help: "Animation frames processed (1: animations become their first frame); more answers 422.")
    var maxFrames = defaults.maxFrames
    @Option(help: ArgumentHelp("Most pixels a result may have; more answers 422.", valueName: "pixels")) var maxOutputPixels = defaults.maxOutputPixels
    @Flag(name: .customLong("auto-jxl"), help: "Answer JPEG XL when the URL names no format and Accept names image/jxl.") var autoJXL = false
    @Option(help: ArgumentHelp("Export traces over OTLP/HTTP to this collector (default: no traces).", valueName: "http://host:4318"))
    var otelEndpoint: String?
    @Option(help: ArgumentHelp("imgproxy's name: --max-source-pixels in megapixels.", valueName: "megapixels")) var maxSrcResolution: Double?
    @Option(help: ArgumentHelp("imgproxy's name for --max-source-bytes.", valueName: "bytes")) var maxSrcFileSize: ByteCount?
    @Option(help: ArgumentHelp("imgproxy's name for --max-frames.", valueName: "n")) var maxAnimationFrames: Int?
    @Option(help: ArgumentHelp("imgproxy's name for --queue.", valueName: "n")) var requestsQueueSize: Int?
    @Option(help: ArgumentHelp("imgproxy's name for --request-timeout.", valueName: "seconds")) var timeout: Int?
    @Option(help: ArgumentHelp("imgproxy's name for --max-connections.", valueName: "n")) var maxClients: Int?
    @Option(help: ArgumentHelp("imgproxy's name for --idle-timeout.", valueName: "seconds")) var keepAliveTimeout: Int?
    @Option(help: ArgumentHelp("imgproxy's name for --local-root.", valueName: "dir")) var localFilesystemRoot: String?
    @Option(help: ArgumentHelp("imgproxy's name for --allow-source; repeatable or comma-separated.", valueName: "prefix")) var allowedSources: [String] = []
    @Option(help: ArgumentHelp("imgproxy's name for --preset; repeatable or comma-separated.", valueName: "NAME=OPTIONS")) var presets: [String] = []
    @Option(help: ArgumentHelp("imgproxy's name for --watermark with a file.", valueName: "path")) var watermarkPath: String?
    @Option(help: ArgumentHelp("imgproxy's name for --watermark with a URL.", valueName: "url")) var watermarkURL: String?
    @Option(help: ArgumentHelp("The watermark image itself, as base64 (imgproxy's IMGPROXY_WATERMARK_DATA).", valueName: "base64")) var watermarkData: String?
    @Option(help: ArgumentHelp("imgproxy's name for --fallback-image with a file.", valueName: "path")) var fallbackImagePath: String?
    @Option(help: ArgumentHelp("imgproxy's name for --fallback-image with a URL.", valueName: "url")) var fallbackImageURL: String?
    @Option(help: ArgumentHelp("The fallback image itself, as base64 (imgproxy's IMGPROXY_FALLBACK_IMAGE_DATA).", valueName: "base64"))
    var fallbackImageData: String?
    @Option(help: ArgumentHelp("imgproxy's name for --fallback-image-status.", valueName: "status")) var fallbackImageHTTPCode: Int?
    @Option(help: "How log lines are written on standard error: text, or json (one object per line).") var logFormat = LogFormat.text
    @Flag(help: "Log less: warnings and errors only, no access log.") var quiet = false
    @Flag(name: .shortAndLong, help: "Log more: the pipeline's debug lines too.") var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        _ = try serverConfiguration()
        if let otelEndpoint { try TraceExport.validate(otelEndpoint) }
    }

    func run() async throws {
        let level: Logger.Level = verbose ? .debug : quiet ? .warning : .info
        LoggingSystem.bootstrap { [logFormat] label in
            switch logFormat {
            case .json:
                return JSONLogHandler(label: label, logLevel: level)
            case .text:
                return EscapingLogHandler(base: TextLogHandler(label: label, logLevel: level))
            }
        }
        let redisPools = RedisPoolService()
        var configuration = try serverConfiguration(redisPools: redisPools)
        do {
            if case .remote(let url) = try watermarkSetting() { configuration.watermark = try await ServeImageSetting.fetch(url, flag: "--watermark") }
            if case .remote(let url) = try fallbackImageSetting() {
                configuration.fallbackImage = try await ServeImageSetting.fetch(url, flag: "--fallback-image")
            }
        } catch {
            Console.err("imagepipe: serve: could not start: \(error)")
            throw ExitCode(1)
        }
        // The tool's coders (AVIF and HEIF included): HEIC sources decode, and AVIF is offered to
        // clients whose Accept names it.
        PipelineSetup.registerPlugins()
        let server = ImageServer(configuration: configuration, coders: ImageCodersManager.shared, logger: Logger(label: "imagepipe.serve"))
        // Stopped in reverse order after the HTTP server: the Redis pools, then the trace exporter.
        let services: [any Service] =
            (try otelEndpoint.map { [try TraceExport.bootstrap(endpoint: $0, logger: Logger(label: "imagepipe.otel"))] } ?? []) + [redisPools]
        let ready = ReadyFlag()
        do {
            try await server.run(services: services) { [configuration] address in
                ready.set()
                Console.out("imagepipe serve: listening on http://\(address)")
                Logger(label: "imagepipe.serve").info("configuration", metadata: EffectiveSettings.metadata(configuration))
            }
        } catch {
            // Not listening (the port is taken, say) is a failure; a drain cut short by
            // --shutdown-timeout still ends a server that ran normally.
            guard ready.isSet else {
                Console.err("imagepipe: serve: could not start: \(ImageServer.startFailure(error, configuration: configuration))")
                throw ExitCode(1)
            }
            Logger(label: "imagepipe.serve").warning("stopped: \(error)")
        }
    }

    /// Why `hex` is not a key or salt (`name`), or nil when it is one.
    static func hexProblem(_ hex: String, name: String) -> String? {
        if hex.isEmpty { return "\(name) is empty" }
        if let bad = hex.unicodeScalars.first(where: { !$0.properties.isASCIIHexDigit }) {
            return "\(name) has '\(String(bad).debugDescription.dropFirst().dropLast())', which is not a hex digit (0-9, a-f)"
        }
        if hex.utf8.count % 2 != 0 { return "\(name) has \(hex.utf8.count) hex digits, an odd number: two make one byte" }
        return nil
    }

    /// The configuration the flags describe (`ServeEnvironment` has added the variables').
    /// - Parameter redisPools: where `--redis`'s caches are kept, to be closed at shutdown.
    func serverConfiguration(redisPools: RedisPoolService = RedisPoolService()) throws -> ImageServerConfiguration {
        var settings = ImageServerConfiguration()
        settings.host = host
        settings.port = try Self.within(port, 0...65535, "--port")
        guard key.count == salt.count else { throw ValidationError("give one --salt for each --key (\(key.count) keys, \(salt.count) salts)") }
        settings.signingKeys = try zip(key, salt).map { pair in
            guard let signingKey = URLSigningKey(keyHex: pair.0, saltHex: pair.1) else {
                let problem = Self.hexProblem(pair.0, name: "--key") ?? Self.hexProblem(pair.1, name: "--salt") ?? "not a key"
                throw ValidationError("--key and --salt must be non-empty hex strings: \(problem)")
            }
            return signingKey
        }
        settings.allowsUnsigned = allowUnsigned
        settings.signatureSize = try Self.within(signatureSize, 1...32, "--signature-size")
        settings.trustedSignatures = Set(Self.items(trustedSignatures))
        if let secret {
            guard !secret.isEmpty, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw ValidationError("--secret must be printable ASCII without spaces (it is sent in a header)")
            }
            settings.secret = secret
        }
        if let allowOrigin {
            guard !allowOrigin.isEmpty, allowOrigin.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw ValidationError("--allow-origin must be printable ASCII (it is sent in a header)")
            }
            settings.allowOrigin = allowOrigin
        }
        settings.allowedProcessingOptions = Set(Self.items(allowedProcessingOptions))
        settings.baseURL = baseURL
        settings.defaultQuality = try Self.within(quality, 1...100, "--quality")
        for entry in Self.items(formatQuality) {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let format = ImageFormat.named(String(parts[0])), format != .undefined, let value = Int(parts[1]), (1...100).contains(value) else {
                throw ValidationError("--format-quality '\(entry)' must be FORMAT=QUALITY, a format name and a whole number from 1 to 100 (webp=79)")
            }
            settings.formatQuality[format.identifier] = value
        }
        (settings.autoWebP, settings.autoAVIF) = (autoWebp.isOn, autoAvif.isOn)
        (settings.enforceWebP, settings.enforceAVIF) = (enforceWebp.isOn, enforceAvif.isOn)
        if settings.signingKeys.isEmpty && !settings.allowsUnsigned {
            throw ValidationError("give --key and --salt (or IMAGEPIPE_KEY and IMAGEPIPE_SALT), or --allow-unsigned")
        }
        settings.allowedSources = try (allowSource + Self.items(allowedSources)).map { text in
            guard let prefix = SourcePrefix(text) else {
                throw ValidationError("--allow-source '\(text)' must be an http(s) URL prefix with a host, e.g. https://images.example.com/")
            }
            return prefix
        }
        settings.presets = try (preset + Self.items(presets)).map { definition in
            do {
                return try ProcessingPreset(definition)
            } catch {
                throw ValidationError("--preset: \(error)")
            }
        }
        settings.onlyPresets = onlyPresets
        if onlyPresets && settings.presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset") }
        settings.allowsPrivateSources = allowPrivateSources
        settings.watermark = try watermarkSetting()?.image(flag: "--watermark")
        guard watermarkOpacity > 0 && watermarkOpacity <= 1 else { throw ValidationError("--watermark-opacity must be a number over 0, up to 1") }
        settings.watermarkOpacity = watermarkOpacity
        settings.fallbackImage = try fallbackImageSetting()?.image(flag: "--fallback-image")
        let fallbackStatus = try Self.either(fallbackImageStatus, Self.defaults.fallbackImageStatus, fallbackImageHTTPCode, "--fallback-image-status", "--fallback-image-http-code")
        guard fallbackStatus == 0 || (200...599).contains(fallbackStatus) else {
            throw ValidationError("--fallback-image-status must be 0 (the failure's status) or a status from 200 to 599")
        }
        settings.fallbackImageStatus = fallbackStatus
        settings.fallbackImageTTL = try fallbackImageTTL.map { try Self.within($0, 0...Int(Int32.max), "--fallback-image-ttl") }
        if let localRoot = try Self.either(localRoot, localFilesystemRoot, "--local-root", "--local-filesystem-root") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: localRoot, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--local-root '\(localRoot)' is not a folder")
            }
            settings.localRoot = URL(fileURLWithPath: localRoot).standardizedFileURL.path
        }
        settings.workers = try Self.within(workers, 1...1024, "--workers")
        settings.queueSize = try Self.within(try Self.either(queue, Self.defaults.queueSize, requestsQueueSize, "--queue", "--requests-queue-size"), 0...1_000_000, "--queue")
        settings.cacheTTL = try Self.within(ttl, 0...Int(Int32.max), "--ttl")
        if noCache && cacheDir != nil { throw ValidationError("--cache-dir and --no-cache cannot be used together") }
        settings.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0).standardizedFileURL }
        try fleetSettings(into: &settings, redisPools: redisPools)
        settings.memoryLimit = noCache ? 0 : try Self.within(memoryLimit.bytes, 0...Int.max, "--memory-limit")
        settings.maxWorkingMemory = try Self.within(maxWorkingMemory.bytes, 1 << 20...Int.max, "--max-working-memory")
        settings.metricsPort = try metricsPort.map { try Self.within($0, 0...65535, "--metrics-port") }
        settings.metricsHost = metricsHost
        settings.maxURLLength = try Self.within(maxURLLength.bytes, 256...(1 << 20), "--max-url-length")
        settings.idleTimeout = .seconds(try Self.within(try Self.either(idleTimeout, Self.seconds(Self.defaults.idleTimeout), keepAliveTimeout, "--idle-timeout", "--keep-alive-timeout"), 1...3600, "--idle-timeout"))
        settings.maxConnections = try Self.within(try Self.either(maxConnections, Self.defaults.maxConnections, maxClients, "--max-connections", "--max-clients"), 1...1_000_000, "--max-connections")
        settings.shutdownTimeout = .seconds(try Self.within(shutdownTimeout, 0...86400, "--shutdown-timeout"))
        settings.drainDelay = .seconds(try Self.within(drainDelay, 0...3600, "--drain-delay"))
        settings.requestTimeout = .seconds(try Self.within(try Self.either(requestTimeout, Self.seconds(Self.defaults.requestTimeout), timeout, "--request-timeout", "--timeout"), 1...3600, "--request-timeout"))
        settings.maxSourceBytes = try Self.within(try Self.either(maxSourceBytes.bytes, Self.defaults.maxSourceBytes, maxSrcFileSize?.bytes, "--max-source-bytes", "--max-src-file-size"), 1...(1 << 40), "--max-source-bytes")
        let megapixels = try maxSrcResolution.map { value in
            guard value > 0 && value <= 1_000_000 else { throw ValidationError("--max-src-resolution must be a number of megapixels over 0") }
            return Int((value * 1_000_000).rounded())
        }
        settings.maxSourcePixels = try Self.within(
            try Self.either(maxSourcePixels, Self.defaults.maxSourcePixels, megapixels, "--max-source-pixels", "--max-src-resolution"), 1...(1 << 40), "--max-source-pixels")
        settings.maxFrames = try Self.within(try Self.either(maxFrames, Self.defaults.maxFrames, maxAnimationFrames, "--max-frames", "--max-animation-frames"), 1...ImageDecodeOptions.defaultMaxFrames, "--max-frames")
        settings.maxOutputPixels = try Self.within(maxOutputPixels, 1...(1 << 40), "--max-output-pixels")
        settings.negotiatesJXL = autoJXL
        return settings
    }

    /// `--redis` and the fleet's settings: sources and results shared through one `RedisImageCache`,
    /// keys carrying purge generations, and `--admin-secret`'s purge route.
    private func fleetSettings(into settings: inout ImageServerConfiguration, redisPools: RedisPoolService) throws {
        guard var redis = try RedisOption.configuration(redis, lockWait: redisLockWait, environment: ProcessInfo.processInfo.environment) else {
            if redisMaxResultBytes != nil { throw ValidationError("--redis-max-result-bytes needs --redis") }
            if adminSecret != nil { throw ValidationError("--admin-secret needs --redis (purges go through the shared tier)") }
            return
        }
        if let maxResultBytes = redisMaxResultBytes {
            redis.maxResultBytes = try Self.within(maxResultBytes.bytes, 0...(512 << 20), "--redis-max-result-bytes")
        }
        if let adminSecret {
            guard !adminSecret.isEmpty, adminSecret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw ValidationError("--admin-secret must be printable ASCII without spaces (it is sent in a header)")
            }
            settings.adminSecret = adminSecret
        }
        let tier = ServeRedisTier(configuration: redis, pools: redisPools)
        settings.sharedSources = { origin, factory in
            var loader = RedisSharedLoader(origin: origin, cache: tier.cache(factory: factory))
            loader.foldsPurgeGenerations = true
            return loader
        }
        settings.sharedResults = { factory in RedisResultStore(cache: tier.cache(factory: factory)) }
    }

    /// The setting given as `name` or under imgproxy's `alias`: the alias when given (it has no
    /// default), and a usage error when both are.
    static func either<T: Equatable>(_ value: T, _ defaultValue: T, _ alias: T?, _ name: String, _ aliasName: String) throws -> T {
        guard let alias else { return value }
        guard value == defaultValue else { throw ValidationError("\(name) and \(aliasName) are the same setting: give one") }
        return alias
    }

    /// `either` for settings without a default.
    static func either<T>(_ value: T?, _ alias: T?, _ name: String, _ aliasName: String) throws -> T? {
        if value != nil && alias != nil { throw ValidationError("\(name) and \(aliasName) are the same setting: give one") }
        return value ?? alias
    }

    /// The values of a repeatable flag, each also split at commas (imgproxy's lists are comma-separated).
    static func items(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func watermarkSetting() throws -> ServeImageSetting? {
        try ServeImageSetting.given(watermark, path: watermarkPath, url: watermarkURL, data: watermarkData, flag: "--watermark")
    }

    func fallbackImageSetting() throws -> ServeImageSetting? {
        try ServeImageSetting.given(fallbackImage, path: fallbackImagePath, url: fallbackImageURL, data: fallbackImageData, flag: "--fallback-image")
    }

    /// `value` when `range` holds it; otherwise a usage error naming the flag and the range.
    private static func within(_ value: Int, _ range: ClosedRange<Int>, _ flag: String) throws -> Int {
        guard range.contains(value) else {
            throw ValidationError("\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// A setting that is on or off: `on`, `off`, and the spellings imgproxy's variables take
/// (`true`, `false`, `1`, `0`, `yes`, `no`).
struct Switch: ExpressibleByArgument, CustomStringConvertible {
    let isOn: Bool

    init(_ isOn: Bool) { self.isOn = isOn }

    init?(argument: String) {
        switch argument.lowercased() {
        case "on", "true", "1", "yes", "t": isOn = true
        case "off", "false", "0", "no", "f": isOn = false
        default: return nil
        }
    }

    var description: String { isOn ? "on" : "off" }
    var defaultValueDescription: String { description }
    static var allValueStrings: [String] { ["on", "off"] }
}

/// `--log-format`.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Set once the server listens.
final class ReadyFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
