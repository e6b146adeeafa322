import ArgumentParser
import CacheRedis
import Foundation
import ImageServer
import Logging
import PipelineCore
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
    @Option(help: ArgumentHelp("Only fetch sources under this URL prefix (scheme, host and port compared exactly); repeatable.", valueName: "prefix"))
    var allowSource: [String] = []
    @Option(help: ArgumentHelp("Options URLs apply with pr:NAME, as NAME=OPTION/OPTION; `default` applies to every URL; repeatable.", valueName: "NAME=OPTIONS"))
    var preset: [String] = []
    @Flag(help: "URLs name presets only: /SIGNATURE/NAME:NAME/SOURCE, no other option is read.") var onlyPresets = false
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
    @Option(help: ArgumentHelp("Bytes of results kept in memory (default: a fifth of RAM or of the cgroup limit).", valueName: "bytes"))
    var memoryLimit = defaults.memoryLimit
    @Option(help: "Serve /metrics on this port (default: no metrics; the main port never serves them).") var metricsPort: Int?
    @Option(help: ArgumentHelp("The address the metrics port listens on.", valueName: "addr")) var metricsHost = defaults.metricsHost
    @Option(help: ArgumentHelp("Bytes of a request's path and query; longer is 414.", valueName: "bytes")) var maxURLLength = defaults.maxURLLength
    @Option(help: ArgumentHelp("Seconds a connection may take to send a request head, or sit idle between requests, before it is closed.", valueName: "seconds"))
    var idleTimeout = seconds(defaults.idleTimeout)
    @Option(help: ArgumentHelp("Connections open at once; more wait to be accepted.", valueName: "n")) var maxConnections = defaults.maxConnections
    @Option(help: ArgumentHelp("Seconds SIGTERM/SIGINT wait for requests in flight.", valueName: "seconds")) var shutdownTimeout = seconds(defaults.shutdownTimeout)
    @Option(help: ArgumentHelp("Seconds /health answers 503 after SIGTERM/SIGINT before the listener closes (behind a load balancer: its check interval times its threshold).", valueName: "seconds"))
    var drainDelay = seconds(defaults.drainDelay)
    @Option(help: ArgumentHelp("Seconds one request may take before answering 503.", valueName: "seconds")) var requestTimeout = seconds(defaults.requestTimeout)
    @Option(help: ArgumentHelp("Largest source, in bytes; larger answers 422.", valueName: "bytes")) var maxSourceBytes = defaults.maxSourceBytes
    @Option(help: ArgumentHelp("Most pixels a source may have; more answers 422.", valueName: "pixels")) var maxSourcePixels = defaults.maxSourcePixels
    @Option(help: "Animation frames processed (1: animations become their first frame); more answers 422.")
    var maxFrames = defaults.maxFrames
    @Option(help: ArgumentHelp("Most pixels a result may have; more answers 422.", valueName: "pixels")) var maxOutputPixels = defaults.maxOutputPixels
    @Flag(name: .customLong("auto-jxl"), help: "Answer JPEG XL when the URL names no format and Accept names image/jxl.") var autoJXL = false
    @Option(help: ArgumentHelp("Export traces over OTLP/HTTP to this collector (default: no traces).", valueName: "http://host:4318"))
    var otelEndpoint: String?
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
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return EscapingLogHandler(base: handler)
            }
        }
        let configuration = try serverConfiguration()
        // The tool's coders (AVIF and HEIF included): HEIC sources decode, and AVIF is offered to
        // clients whose Accept names it.
        PipelineSetup.registerPlugins()
        let server = ImageServer(configuration: configuration, coders: ImageCodersManager.shared, logger: Logger(label: "imagepipe.serve"))
        let services = try otelEndpoint.map { [try TraceExport.bootstrap(endpoint: $0, logger: Logger(label: "imagepipe.otel"))] } ?? []
        let ready = ReadyFlag()
        do {
            try await server.run(services: services) { address in
                ready.set()
                Console.out("imagepipe serve: listening on http://\(address)")
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
    func serverConfiguration() throws -> ImageServerConfiguration {
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
        if settings.signingKeys.isEmpty && !settings.allowsUnsigned {
            throw ValidationError("give --key and --salt (or IMAGEPIPE_KEY and IMAGEPIPE_SALT), or --allow-unsigned")
        }
        settings.allowedSources = try allowSource.map { text in
            guard let prefix = SourcePrefix(text) else {
                throw ValidationError("--allow-source '\(text)' must be an http(s) URL prefix with a host, e.g. https://images.example.com/")
            }
            return prefix
        }
        settings.presets = try preset.map { definition in
            do {
                return try ProcessingPreset(definition)
            } catch {
                throw ValidationError("--preset: \(error)")
            }
        }
        settings.onlyPresets = onlyPresets
        if onlyPresets && settings.presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset") }
        settings.allowsPrivateSources = allowPrivateSources
        if let localRoot {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: localRoot, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--local-root '\(localRoot)' is not a folder")
            }
            settings.localRoot = URL(fileURLWithPath: localRoot).standardizedFileURL.path
        }
        settings.workers = try Self.within(workers, 1...1024, "--workers")
        settings.queueSize = try Self.within(queue, 0...1_000_000, "--queue")
        settings.cacheTTL = try Self.within(ttl, 0...Int(Int32.max), "--ttl")
        if noCache && cacheDir != nil { throw ValidationError("--cache-dir and --no-cache cannot be used together") }
        settings.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0).standardizedFileURL }
        if let redis = try RedisOption.configuration(redis, lockWait: redisLockWait, environment: ProcessInfo.processInfo.environment) {
            settings.sharedSources = { origin, factory in
                RedisSharedLoader(origin: origin, cache: RedisImageCache(configuration: redis, metrics: RedisCacheMetrics(factory: factory)))
            }
        }
        settings.memoryLimit = noCache ? 0 : try Self.within(memoryLimit, 0...Int.max, "--memory-limit")
        settings.metricsPort = try metricsPort.map { try Self.within($0, 0...65535, "--metrics-port") }
        settings.metricsHost = metricsHost
        settings.maxURLLength = try Self.within(maxURLLength, 256...(1 << 20), "--max-url-length")
        settings.idleTimeout = .seconds(try Self.within(idleTimeout, 1...3600, "--idle-timeout"))
        settings.maxConnections = try Self.within(maxConnections, 1...1_000_000, "--max-connections")
        settings.shutdownTimeout = .seconds(try Self.within(shutdownTimeout, 0...86400, "--shutdown-timeout"))
        settings.drainDelay = .seconds(try Self.within(drainDelay, 0...3600, "--drain-delay"))
        settings.requestTimeout = .seconds(try Self.within(requestTimeout, 1...3600, "--request-timeout"))
        settings.maxSourceBytes = try Self.within(maxSourceBytes, 1...(1 << 40), "--max-source-bytes")
        settings.maxSourcePixels = try Self.within(maxSourcePixels, 1...(1 << 40), "--max-source-pixels")
        settings.maxFrames = try Self.within(maxFrames, 1...ImageDecodeOptions.defaultMaxFrames, "--max-frames")
        settings.maxOutputPixels = try Self.within(maxOutputPixels, 1...(1 << 40), "--max-output-pixels")
        settings.negotiatesJXL = autoJXL
        return settings
    }

    /// `value` when `range` holds it; otherwise a usage error naming the flag and the range.
    private static func within(_ value: Int, _ range: ClosedRange<Int>, _ flag: String) throws -> Int {
        guard range.contains(value) else {
            throw ValidationError("\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
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
