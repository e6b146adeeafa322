import ArgumentParser
import CacheRedis
import Foundation
import ImageServer
import Logging
import PipelineCore
import Synchronization

/// `imagepipe serve`: the image service. Every flag can also come from an `IMAGEPIPE_…`
/// environment variable (the flag's name in capitals, dashes as underscores); a flag wins.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images over HTTP with imgproxy's URL grammar and signatures.",
        discussion: """
            URLs: /SIGNATURE/OPTIONS/plain/SOURCE@EXT or /SIGNATURE/OPTIONS/BASE64URL_SOURCE.EXT.
            Every flag can also be set by an environment variable: --allow-source as
            IMAGEPIPE_ALLOW_SOURCE, and so on (repeatable flags take comma-separated lists;
            IMAGEPIPE_KEY and IMAGEPIPE_SALT keep keys out of the process list).
            """
    )

    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on, 0 for any free port (default 8080).") var port: Int?
    @Option(help: ArgumentHelp("Hex signing key; repeat with --salt for several pairs (key rotation).", valueName: "hex")) var key: [String] = []
    @Option(help: ArgumentHelp("Hex salt, one per --key.", valueName: "hex")) var salt: [String] = []
    @Flag(name: .customLong("allow-unsigned"), help: "Accept unsigned URLs (insecure or _ in place of the signature).") var allowUnsigned = false
    @Option(name: .customLong("allow-source"), help: ArgumentHelp("Only fetch sources under this URL prefix (scheme, host and port compared exactly); repeatable.", valueName: "prefix"))
    var allowSource: [String] = []
    @Flag(name: .customLong("allow-private-sources"), help: "Let sources resolve to loopback, private and link-local addresses (the SSRF guard is on otherwise).")
    var allowPrivateSources = false
    @Option(name: .customLong("local-root"), help: ArgumentHelp("Serve local:///path sources from this folder (refused otherwise).", valueName: "dir")) var localRoot: String?
    @Option(help: "Images decoded, transformed and encoded at once; as many more fetch their sources meanwhile (default: one per core).") var workers: Int?
    @Option(help: "Image requests waiting to start before answering 429 (default 64).") var queue: Int?
    @Option(help: ArgumentHelp("Cache-Control max-age of images, in seconds (default 31536000, a year).", valueName: "seconds")) var ttl: Int?
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Keep sources and results on disk in this folder (default: memory only).", valueName: "dir")) var cacheDirectory: String?
    @Flag(name: .customLong("no-cache"), help: "Keep nothing, neither in memory nor on disk.") var noCache = false
    @Option(name: .customLong("redis"), help: ArgumentHelp("Share fetched sources with every server using this Redis; a source they all miss is fetched once (password also from $IMAGEPIPE_REDIS_PASSWORD).", valueName: "redis://[:password@]host:port[/db]"))
    var redisURL: String?
    @Option(name: .customLong("redis-lock-wait"), help: ArgumentHelp("Seconds a source every server misses waits for the one fetching it before fetching itself, 0–3600 (default 5).", valueName: "seconds"))
    var redisLockWait: Int?
    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("Bytes of results kept in memory (default: a fifth of RAM or of the cgroup limit).", valueName: "bytes")) var memoryLimit: Int?
    @Option(name: .customLong("metrics-port"), help: "Serve /metrics on this port (default: no metrics; the main port never serves them).") var metricsPort: Int?
    @Option(name: .customLong("metrics-host"), help: ArgumentHelp("The address the metrics port listens on (default 127.0.0.1).", valueName: "addr")) var metricsHost: String?
    @Option(name: .customLong("max-url-length"), help: ArgumentHelp("Bytes of a request's path and query; longer is 414 (default 8192).", valueName: "bytes"))
    var maxURLLength: Int?
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds a connection may take to send a request head, or sit idle between requests, before it is closed (default 10).", valueName: "seconds"))
    var idleTimeout: Int?
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once; more wait to be accepted (default 1024).", valueName: "n"))
    var maxConnections: Int?
    @Option(name: .customLong("shutdown-timeout"), help: ArgumentHelp("Seconds SIGTERM/SIGINT wait for requests in flight (default 30).", valueName: "seconds")) var shutdownTimeout: Int?
    @Option(name: .customLong("request-timeout"), help: ArgumentHelp("Seconds one request may take before answering 504 (default 10).", valueName: "seconds")) var requestTimeout: Int?
    @Option(name: .customLong("max-source-bytes"), help: ArgumentHelp("Largest source, in bytes (default 33554432); larger answers 413.", valueName: "bytes")) var maxSourceBytes: Int?
    @Option(name: .customLong("max-source-pixels"), help: ArgumentHelp("Most pixels a source may have (default 50000000); more answers 422.", valueName: "pixels")) var maxSourcePixels: Int?
    @Option(name: .customLong("max-frames"), help: "Animation frames processed (default 1: animations become their first frame); more answers 422.") var maxFrames: Int?
    @Option(name: .customLong("max-output-pixels"), help: ArgumentHelp("Most pixels a result may have (default 50000000); more answers 422.", valueName: "pixels")) var maxOutputPixels: Int?
    @Flag(name: .long, help: "Log less: warnings and errors only, no access log.") var quiet = false
    @Flag(name: .shortAndLong, help: "Log more: the pipeline's debug lines too.") var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        _ = try serverConfiguration(environment: ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        let level: Logger.Level =
            verbose ? .debug : quiet || Self.flag("QUIET", ProcessInfo.processInfo.environment) ? .warning : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return EscapingLogHandler(base: handler)
        }
        let configuration = try serverConfiguration(environment: ProcessInfo.processInfo.environment)
        // The tool's coders (AVIF and HEIF included): HEIC sources decode, and AVIF is offered to
        // clients whose Accept names it.
        PipelineSetup.registerPlugins()
        let server = ImageServer(configuration: configuration, coders: ImageCodersManager.shared, logger: Logger(label: "imagepipe.serve"))
        let ready = ReadyFlag()
        do {
            try await server.run { address in
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

    /// The configuration from the flags, each missing one from its `IMAGEPIPE_…` variable.
    func serverConfiguration(environment: [String: String]) throws -> ImageServerConfiguration {
        var settings = ImageServerConfiguration()
        let env = EnvironmentOptions(environment)
        settings.host = host ?? env.string("HOST") ?? settings.host
        settings.port = try Self.range(port ?? env.int("PORT"), "--port", 0...65535) ?? settings.port
        let keys = key.isEmpty ? env.list("KEY") : key
        let salts = salt.isEmpty ? env.list("SALT") : salt
        guard keys.count == salts.count else { throw ValidationError("give one --salt for each --key (\(keys.count) keys, \(salts.count) salts)") }
        settings.signingKeys = try zip(keys, salts).map { pair in
            guard let signingKey = URLSigningKey(keyHex: pair.0, saltHex: pair.1) else {
                let problem = Self.hexProblem(pair.0, name: "--key") ?? Self.hexProblem(pair.1, name: "--salt") ?? "not a key"
                throw ValidationError("--key and --salt must be non-empty hex strings: \(problem)")
            }
            return signingKey
        }
        settings.allowsUnsigned = allowUnsigned || Self.flag("ALLOW_UNSIGNED", environment)
        if settings.signingKeys.isEmpty && !settings.allowsUnsigned {
            throw ValidationError("give --key and --salt (or IMAGEPIPE_KEY and IMAGEPIPE_SALT), or --allow-unsigned")
        }
        settings.allowedSources = try (allowSource.isEmpty ? env.list("ALLOW_SOURCE") : allowSource).map { text in
            guard let prefix = SourcePrefix(text) else {
                throw ValidationError("--allow-source '\(text)' must be an http(s) URL prefix with a host, e.g. https://images.example.com/")
            }
            return prefix
        }
        settings.allowsPrivateSources = allowPrivateSources || Self.flag("ALLOW_PRIVATE_SOURCES", environment)
        if let root = localRoot ?? env.string("LOCAL_ROOT") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--local-root '\(root)' is not a folder")
            }
            settings.localRoot = URL(fileURLWithPath: root).standardizedFileURL.path
        }
        settings.workers = try Self.range(workers ?? env.int("WORKERS"), "--workers", 1...1024) ?? settings.workers
        settings.queueSize = try Self.range(queue ?? env.int("QUEUE"), "--queue", 0...1_000_000) ?? settings.queueSize
        settings.cacheTTL = try Self.range(ttl ?? env.int("TTL"), "--ttl", 0...Int(Int32.max)) ?? settings.cacheTTL
        let noCache = self.noCache || Self.flag("NO_CACHE", environment)
        let cacheDirectory = self.cacheDirectory ?? env.string("CACHE_DIR")
        if noCache && cacheDirectory != nil { throw ValidationError("--cache-dir and --no-cache cannot be used together") }
        settings.cacheDirectory = cacheDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL }
        if let redis = try RedisOption.configuration(redisURL ?? env.string("REDIS"), lockWait: redisLockWait, environment: environment) {
            settings.sharedSources = { origin, factory in
                RedisSharedLoader(origin: origin, cache: RedisImageCache(configuration: redis, metrics: RedisCacheMetrics(factory: factory)))
            }
        }
        settings.memoryLimit = try Self.range(memoryLimit ?? env.int("MEMORY_LIMIT"), "--memory-limit", 0...Int.max) ?? settings.memoryLimit
        if noCache { settings.memoryLimit = 0 }
        settings.metricsPort = try Self.range(metricsPort ?? env.int("METRICS_PORT"), "--metrics-port", 0...65535)
        settings.metricsHost = metricsHost ?? env.string("METRICS_HOST") ?? settings.metricsHost
        settings.maxURLLength = try Self.range(maxURLLength ?? env.int("MAX_URL_LENGTH"), "--max-url-length", 256...(1 << 20)) ?? settings.maxURLLength
        if let seconds = try Self.range(idleTimeout ?? env.int("IDLE_TIMEOUT"), "--idle-timeout", 1...3600) {
            settings.idleTimeout = .seconds(seconds)
        }
        settings.maxConnections = try Self.range(maxConnections ?? env.int("MAX_CONNECTIONS"), "--max-connections", 1...1_000_000) ?? settings.maxConnections
        if let seconds = try Self.range(shutdownTimeout ?? env.int("SHUTDOWN_TIMEOUT"), "--shutdown-timeout", 0...86400) {
            settings.shutdownTimeout = .seconds(seconds)
        }
        if let seconds = try Self.range(requestTimeout ?? env.int("REQUEST_TIMEOUT"), "--request-timeout", 1...3600) {
            settings.requestTimeout = .seconds(seconds)
        }
        settings.maxSourceBytes = try Self.range(maxSourceBytes ?? env.int("MAX_SOURCE_BYTES"), "--max-source-bytes", 1...(1 << 40)) ?? settings.maxSourceBytes
        settings.maxSourcePixels = try Self.range(maxSourcePixels ?? env.int("MAX_SOURCE_PIXELS"), "--max-source-pixels", 1...(1 << 40)) ?? settings.maxSourcePixels
        settings.maxFrames = try Self.range(maxFrames ?? env.int("MAX_FRAMES"), "--max-frames", 1...ImageDecodeOptions.defaultMaxFrames) ?? settings.maxFrames
        settings.maxOutputPixels = try Self.range(maxOutputPixels ?? env.int("MAX_OUTPUT_PIXELS"), "--max-output-pixels", 1...(1 << 40)) ?? settings.maxOutputPixels
        return settings
    }

    private static func range(_ value: Int?, _ flag: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw ValidationError("\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func flag(_ name: String, _ environment: [String: String]) -> Bool {
        ["1", "true", "yes", "on"].contains(environment["IMAGEPIPE_" + name]?.lowercased() ?? "")
    }
}

/// Set once the server listens.
final class ReadyFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// `IMAGEPIPE_…` variables, read as the flags they stand for.
struct EnvironmentOptions {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) -> String? {
        guard let value = environment["IMAGEPIPE_" + name], !value.isEmpty else { return nil }
        return value
    }

    /// A whole number; one that is not is a usage error naming the variable.
    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError("IMAGEPIPE_\(name) must be a whole number") }
        return value
    }

    func list(_ name: String) -> [String] {
        string(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }
}
