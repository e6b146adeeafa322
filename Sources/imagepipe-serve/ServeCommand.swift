import ArgumentParser
import CacheRedis
import Foundation
import ImageServer
import Logging
import PipelineCore
import ServiceLifecycle
import Synchronization
import ToolSupport

/// `imagepipe serve`: the image service, an executable of its own (`imagepipe-serve`) that
/// `imagepipe serve` runs, so the tool's other commands never load the server stack. Each property
/// is one setting, declared from its row of `ServeSettings` (flag, aliases, help, and the default,
/// from `ImageServerConfiguration()`); `serverConfiguration()` applies the rows;
/// `ServeEnvironment` adds their variables.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagepipe serve",
        abstract: ServeSummary.abstract,
        discussion: """
            URLs: /SIGNATURE/OPTIONS/plain/SOURCE@EXT or /SIGNATURE/OPTIONS/BASE64URL_SOURCE.EXT.
            Every flag can also be set by an environment variable: --allow-source as
            IMAGEPIPE_ALLOW_SOURCE, and so on (repeatable flags take comma-separated lists;
            IMAGEPIPE_KEY and IMAGEPIPE_SALT keep keys out of the process list); imgproxy's
            own variables (IMGPROXY_KEY, IMGPROXY_BIND...) set what means the same thing.
            A flag wins over IMAGEPIPE_, which wins over IMGPROXY_.
            """
    )

    @Option(setting: \.host) var host: String
    @Option(setting: \.port) var port: Int
    @Option(setting: \.key) var key: [String]
    @Option(setting: \.salt) var salt: [String]
    @Flag(setting: \.allowUnsigned) var allowUnsigned: Bool
    @Option(setting: \.signatureSize) var signatureSize: Int
    @Option(setting: \.trustedSignatures) var trustedSignatures: [String]
    @Option(setting: \.secret) var secret: String?
    @Option(setting: \.allowOrigin) var allowOrigin: String?
    @Option(setting: \.allowedProcessingOptions) var allowedProcessingOptions: [String]
    @Option(setting: \.baseURL) var baseURL: String?
    @Option(setting: \.pathPrefix) var pathPrefix: String?
    @Option(setting: \.urlReplacement) var urlReplacement: [String]
    @Option(setting: \.useEtag) var useEtag: Switch
    @Option(setting: \.useLastModified) var useLastModified: Switch
    @Option(setting: \.etagBuster) var etagBuster: String?
    @Option(setting: \.lastModifiedBuster) var lastModifiedBuster: String?
    @Option(setting: \.quality) var quality: Int?
    @Option(setting: \.formatQuality) var formatQuality: [String]
    @Option(setting: \.avifSpeed) var avifSpeed: Int
    @Option(setting: \.autoWebp) var autoWebp: Switch
    @Option(setting: \.autoAvif) var autoAvif: Switch
    @Option(setting: \.enforceWebp) var enforceWebp: Switch
    @Option(setting: \.enforceAvif) var enforceAvif: Switch
    @Flag(setting: \.autoJXL) var autoJXL: Bool
    @Option(setting: \.allowSource) var allowSource: [String]
    @Option(setting: \.preset) var preset: [String]
    @Flag(setting: \.onlyPresets) var onlyPresets: Bool
    @Option(setting: \.watermark) var watermark: String?
    @Option(setting: \.watermarkPath) var watermarkPath: String?
    @Option(setting: \.watermarkURL) var watermarkURL: String?
    @Option(setting: \.watermarkData) var watermarkData: String?
    @Option(setting: \.watermarkOpacity) var watermarkOpacity: Double
    @Option(setting: \.fallbackImage) var fallbackImage: String?
    @Option(setting: \.fallbackImagePath) var fallbackImagePath: String?
    @Option(setting: \.fallbackImageURL) var fallbackImageURL: String?
    @Option(setting: \.fallbackImageData) var fallbackImageData: String?
    @Option(setting: \.fallbackImageStatus) var fallbackImageStatus: Int
    @Option(setting: \.fallbackImageTTL) var fallbackImageTTL: Int?
    @Flag(setting: \.allowPrivateSources) var allowPrivateSources: Bool
    @Option(setting: \.localRoot) var localRoot: String?
    @Option(setting: \.workers) var workers: Int
    @Option(setting: \.queue) var queue: Int
    @Option(setting: \.ttl) var ttl: Int
    @Option(setting: \.cacheDir) var cacheDir: String?
    @Flag(setting: \.noCache) var noCache: Bool
    @Option(setting: \.redis) var redis: String?
    @Option(setting: \.redisLockWait) var redisLockWait: Int?
    @Option(setting: \.redisMaxResultBytes) var redisMaxResultBytes: ByteCount?
    @Option(setting: \.adminSecret) var adminSecret: String?
    @Option(setting: \.memoryLimit) var memoryLimit: ByteCount
    @Option(setting: \.maxWorkingMemory) var maxWorkingMemory: ByteCount
    @Option(setting: \.metricsPort) var metricsPort: Int?
    @Option(setting: \.metricsHost) var metricsHost: String
    @Option(setting: \.maxURLLength) var maxURLLength: ByteCount
    @Option(setting: \.idleTimeout) var idleTimeout: Int
    @Option(setting: \.maxConnections) var maxConnections: Int
    @Option(setting: \.shutdownTimeout) var shutdownTimeout: Int
    @Option(setting: \.drainDelay) var drainDelay: Int
    @Option(setting: \.requestTimeout) var requestTimeout: Int
    @Option(setting: \.maxSourceBytes) var maxSourceBytes: ByteCount
    @Option(setting: \.maxSourcePixels) var maxSourcePixels: Int
    @Option(setting: \.maxSrcResolution) var maxSrcResolution: Double?
    @Option(setting: \.maxFrames) var maxFrames: Int
    @Option(setting: \.maxOutputPixels) var maxOutputPixels: Int
    @Option(setting: \.maxAnimationFrameResolution) var maxAnimationFrameResolution: Double
    @Option(setting: \.maxResultDimension) var maxResultDimension: Int
    @Flag(setting: \.allowSecurityOptions) var allowSecurityOptions: Bool
    @Option(setting: \.stripMetadata) var stripMetadata: Switch
    @Option(setting: \.keepCopyright) var keepCopyright: Switch
    @Option(setting: \.stripColorProfile) var stripColorProfile: Switch
    @Option(setting: \.autoRotate) var autoRotate: Switch
    @Option(setting: \.enforceThumbnail) var enforceThumbnail: Switch
    @Option(setting: \.preserveHDR) var preserveHDR: Switch
    @Option(setting: \.returnAttachment) var returnAttachment: Switch
    @Option(setting: \.skipProcessingFormats) var skipProcessingFormats: [String]
    @Option(setting: \.otelEndpoint) var otelEndpoint: String?
    @Option(setting: \.logFormat) var logFormat: LogFormat
    @Flag(setting: \.quiet) var quiet: Bool
    @Flag(setting: \.verbose) var verbose: Bool

    /// The tool's `main`, with the `IMAGEPIPE_…` (and imgproxy's `IMGPROXY_…`) variables added to
    /// the command line.
    static func main() async {
        await ToolMain.run(Self.self) {
            try ServeEnvironment.arguments(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        }
    }

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        _ = try serverConfiguration()
        if let otelEndpoint { try TraceExport.validate(otelEndpoint) }
    }

    func run() async throws {
        let level: Logger.Level = verbose ? .debug : quiet ? .warning : .info
        LoggingSystem.bootstrap { [logFormat] label in StandardErrorLogHandler(label: label, logLevel: level, format: logFormat) }
        let ignored = ServeEnvironment.ignoredImgproxyVariables(ProcessInfo.processInfo.environment)
        if !ignored.isEmpty {
            Logger(label: "imagepipe.serve").warning("imgproxy settings this server does not read, ignored: \(ignored.joined(separator: ", "))")
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

    /// The configuration the flags describe (`ServeEnvironment` has added the variables'): each
    /// row of `ServeSettings` applied in turn, then what several settings decide together.
    /// - Parameter redisPools: where `--redis`'s caches are kept, to be closed at shutdown.
    func serverConfiguration(redisPools: RedisPoolService = RedisPoolService()) throws -> ImageServerConfiguration {
        var settings = ImageServerConfiguration()
        for setting in ServeSettings.all { try setting.apply?(self, &settings) }
        if noCache { settings.memoryLimit = 0 }
        if settings.signingKeys.isEmpty && !settings.allowsUnsigned {
            throw ValidationError("give --key and --salt (or IMAGEPIPE_KEY and IMAGEPIPE_SALT), or --allow-unsigned")
        }
        try fleetSettings(into: &settings, redisPools: redisPools)
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
            redis.maxResultBytes = try ServeSettings.within(maxResultBytes.bytes, 0...(512 << 20), "redis-max-result-bytes")
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

    /// The key/salt pairs of `--key` and `--salt`.
    func signingKeys() throws -> [URLSigningKey] {
        guard key.count == salt.count else { throw ValidationError("give one --salt for each --key (\(key.count) keys, \(salt.count) salts)") }
        return try zip(key, salt).map { pair in
            guard let signingKey = URLSigningKey(keyHex: pair.0, saltHex: pair.1) else {
                let problem = Self.hexProblem(pair.0, name: "--key") ?? Self.hexProblem(pair.1, name: "--salt") ?? "not a key"
                throw ValidationError("--key and --salt must be non-empty hex strings: \(problem)")
            }
            return signingKey
        }
    }

    func watermarkSetting() throws -> ServeImageSetting? {
        try ServeImageSetting.given(watermark, path: watermarkPath, url: watermarkURL, data: watermarkData, flag: "--watermark")
    }

    func fallbackImageSetting() throws -> ServeImageSetting? {
        try ServeImageSetting.given(fallbackImage, path: fallbackImagePath, url: fallbackImageURL, data: fallbackImageData, flag: "--fallback-image")
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

/// Set once the server listens.
final class ReadyFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
