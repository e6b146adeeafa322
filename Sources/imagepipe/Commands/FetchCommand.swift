import ArgumentParser
import CacheRedis
import Foundation
import ImagePipe
import Logging
import PipelineCore
import ToolSupport

/// `imagepipe fetch`: loads sources through the caches and loaders, optionally thumbnailed and
/// transformed, and writes them to a folder. A failing source never stops the others. A folder
/// SOURCE stands for the images in it (`FetchSources`).
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the caches and loaders and write them to a folder."
    )

    @Argument(help: "http(s) URLs, file:// URLs, paths or folders (their images).")
    var sources: [String]

    @Flag(name: .shortAndLong, help: "Also take the images in a folder's subfolders, mirrored under -o.")
    var recursive = false

    @Option(name: .customShort("o"), help: ArgumentHelp("Write each image into this folder (created if missing).", valueName: "dir"))
    var output: String?

    @OptionGroup var processing: ImageProcessingOptions

    @Option(name: .long, help: "Output format: \(ImageOutput.writableFormatNames) (default: the source's).")
    var format: String?

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The disk cache folder (default: $XDG_CACHE_HOME/imagepipe/default).", valueName: "dir"))
    var cacheDirectory: String?

    @Flag(name: .customLong("no-cache"), help: "Neither read nor write the cache.")
    var noCache = false

    @Option(name: .customLong("redis"), help: ArgumentHelp("Also share encoded images through this Redis (password also from $IMAGEPIPE_REDIS_PASSWORD).", valueName: "redis://[:password@]host:port[/db]"))
    var redisURL: String?

    @Option(name: .customLong("redis-lock-wait"), help: ArgumentHelp("Seconds a source another process is fetching is waited for before fetching it here, 0–3600 (default 5; also $IMAGEPIPE_REDIS_LOCK_WAIT).", valueName: "seconds"))
    var redisLockWait: Int?

    @Option(name: .customLong("option"), help: ArgumentHelp("An ImageOptions name (retryFailed, refreshCached, fromCacheOnly, fromLoaderOnly, decodeFirstFrameOnly, …); repeatable.", valueName: "name"))
    var optionNames: [String] = []

    @Option(name: .long, help: "Sources processed at once, 1–256 (default: one per core; never more than the sources).", transform: WholeNumberOption.parser(WholeNumberOption.concurrency))
    var concurrency: Int = FetchCommand.cores

    /// The default `--concurrency`, read once: ArgumentParser makes several `FetchCommand`s in a
    /// run, and each read of the core count reads the cgroup's CPU quota files again.
    private static let cores = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var network: NetworkOptions

    @OptionGroup var warningOptions: WarningOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one SOURCE") }
        if cacheDirectory != nil && noCache { throw ValidationError("--cache-dir and --no-cache cannot be used together") }
        if redisURL != nil && noCache { throw ValidationError("--redis and --no-cache cannot be used together") }
        _ = try redisConfiguration()
        _ = try outputFormat()
        _ = try imageOptions()
    }

    func outputFormat() throws -> ImageFormat? {
        guard let format else { return nil }
        guard let known = ImageFormat.named(format), let writable = ImageOutput.writableFormats.first(where: { $0 == known }) else {
            throw ValidationError("--format must be \(ImageOutput.writableFormatNames)")
        }
        return writable
    }

    func redisConfiguration() throws -> RedisCacheConfiguration? {
        try RedisOption.configuration(redisURL, lockWait: redisLockWait, environment: ProcessInfo.processInfo.environment)
    }

    func imageOptions() throws -> ImageOptions {
        // The process exits when the last source completes: stores must be done by then, or the next
        // run would find nothing on disk.
        var options: ImageOptions = [.transformAnimatedImage, .waitStoreCache]
        for name in optionNames {
            guard let option = ImageOptions(name: name) else {
                throw ValidationError("unknown --option '\(name)'; known: \(ImageOptions.named.map(\.name).joined(separator: ", "))")
            }
            options.insert(option)
        }
        // An animation written as a still format (JPEG) is its first frame: decoding that frame
        // alone spares the rest. Not with a cache, whose entries runs keeping the animation share
        // (a first-frame decode is stored under the same key, as in SDWebImage).
        if noCache, output != nil, let format = try outputFormat(), !format.supportsAnimation {
            options.insert(.decodeFirstFrameOnly)
        }
        return options
    }

    func run() async throws {
        BatchMemory.reuseFreedMemory()
        outputOptions.bootstrapLogging()
        let logger = Logger(label: "imagepipe.fetch")
        try network.apply()
        let (manager, sharedSourceOriginals) = PipelineSetup.manager(
            cacheDirectory: noCache ? nil : PipelineSetup.cacheDirectory(cacheDirectory), redis: try redisConfiguration())
        let expanded = FetchSources(self.sources, recursive: recursive, outputFolder: output)
        for skip in expanded.skipped { Console.err(skip.note) }
        let sources = expanded.items.map(\.source)
        if sources.isEmpty {
            Console.err("imagepipe: no images to fetch in \(self.sources.joined(separator: " "))")
            throw ExitCode(1)
        }
        let names = OutputNames.assign(sources, folders: expanded.items.map(\.folder))
        var outputFolder: OutputFolder?
        if let output {
            do {
                outputFolder = try OutputFolder(path: output, assignedStems: names)
            } catch {
                Console.err("imagepipe: \(error)")
                throw ExitCode(1)
            }
        }
        var context = try processing.context()
        // A fetch runs once per process: keeping decoded images in memory would only raise its peak.
        context[.storeCacheType] = .disk
        let job = FetchJob(
            manager: manager, sharedSourceOriginals: sharedSourceOriginals, options: try imageOptions(), context: context,
            thumbnail: try processing.thumbnailSize(),
            format: try outputFormat(), encodeOptions: processing.encodeOptions(), outputFolder: outputFolder,
            names: names, warningOptions: warningOptions, logger: logger
        )
        let progress = ProgressBar(total: sources.count, enabled: !outputOptions.json)
        progress.skipped(expanded.skipped.count)
        let json = outputOptions.json
        let failures = await withTaskGroup(of: Bool.self) { group in
            var pending = FetchOrder.indices(of: sources, concurrency: concurrency).map { ($0, sources[$0]) }.makeIterator()
            func startNext() {
                guard let (index, source) = pending.next() else { return }
                group.addTask {
                    let line = await job.process(source, index: index, progress: progress)
                    progress.finishedOne(failed: line.error != nil)
                    if json { Console.out(line.json.text) }
                    DecodeWarnings.report(line.warnings, source: source)
                    if let error = line.error { Console.err("imagepipe: \(source): \(error)") }
                    return line.error != nil
                }
            }
            for _ in 0..<min(concurrency, sources.count) { startNext() }
            var failures = 0
            for await failed in group {
                if failed { failures += 1 }
                startNext()
            }
            return failures
        }
        progress.close()
        if output == nil && !json {
            Console.err(Self.nothingWrittenNote(succeeded: sources.count - failures, of: sources.count, cached: !noCache))
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// What a run without `-o` or `--json` did, which would otherwise be nothing a user can see.
    static func nothingWrittenNote(succeeded: Int, of total: Int, cached: Bool) -> String {
        let what = cached ? "fetched \(succeeded) of \(total) into the disk cache" : "loaded \(succeeded) of \(total) and kept nothing (--no-cache)"
        return "imagepipe: \(what); no file written: give -o DIR to write the images, or --json to list them"
    }
}
