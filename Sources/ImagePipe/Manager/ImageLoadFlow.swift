import Foundation
import Logging
import PipelineCore
import Synchronization
import Tracing

/// One request through the manager, SDWebImage's flow step by step. Each step is a function named
/// for it, and the steps read top to bottom: `init` (entry, pre-process, guard, keys) and
/// `answerFromMemory` need no task and run synchronously, so the async API answers a memory hit
/// without a task, a stream or a hop; `load(for:)` goes on from there inside an `ImageTask`.
struct ImageLoadFlow: Sendable {
    let manager: ImageManager
    let url: URL
    private(set) var options: ImageOptions
    private(set) var context: ImageContext
    let keys: ImageCacheKeys
    /// When the request was made, for `ImageTaskMetrics.totalDuration`.
    let started: ContinuousClock.Instant
    /// The manager's logger; from `load(for:)` on, with the URL and key as metadata.
    private(set) var logger: Logger
    let metrics: PipelineMetrics
    /// The stages this request measured itself; the shared stages come with their results.
    private(set) var taskMetrics = ImageTaskMetrics()
    /// The load's span, and the tracer its steps' spans go to, from `load(for:)` on.
    private(set) var span: (any Span)?
    private(set) var tracing: LoadTracing?

    /// `tracing`, which `load(for:)` sets before any step runs; not made in `init`, which a memory
    /// hit runs, because finding the bootstrapped tracer takes a lock.
    private var stepTracing: LoadTracing { tracing ?? LoadTracing(manager.currentSettings.value.tracer) }

    /// The whole flow for `task`, its failure included.
    static func run(manager: ImageManager, url: URL?, options: ImageOptions, context: ImageContext, for task: ImageTask) async {
        let flow: ImageLoadFlow
        do {
            flow = try ImageLoadFlow(manager: manager, url: url, options: options, context: context)
        } catch {
            task.emit(.failed(error), terminal: true)
            return
        }
        if let hit = flow.answerFromMemory() {
            task.emit(.completed(hit), terminal: true)
            return
        }
        await flow.load(for: task)
    }

    /// 1–5. Entry, pre-process, guard, keys. Always inlined, as is `answerFromMemory`: on a memory
    /// hit the two are the whole cost of a load.
    @inline(__always)
    init(manager: ImageManager, url: URL?, options: ImageOptions, context: ImageContext) throws(ImagePipeError) {
        started = .now
        let snapshot = manager.currentSettings
        guard let url, !url.absoluteString.isEmpty else { throw Self.rejected(.invalidURL(""), url: url, settings: snapshot.value) }
        self.manager = manager
        self.url = url
        self.options = options
        self.context = context
        logger = snapshot.value.logger
        metrics = snapshot.value.metrics
        Self.preprocess(url: url, options: &self.options, context: &self.context, settings: snapshot.value)
        if !self.options.contains(.retryFailed) && manager.blockedURLs.contains(url) {
            throw Self.rejected(.blockedURL(url.absoluteString), url: url, settings: snapshot.value)
        }
        keys = ImageCacheKeys(url: url, context: self.context, settings: snapshot)
    }

    /// 3. The manager's transformer, key filter and serializer fill the context's gaps (the caller
    /// wins); then the options processor may rewrite both.
    private static func preprocess(url: URL, options: inout ImageOptions, context: inout ImageContext, settings: ImageManager.Settings) {
        if settings.transformer != nil || settings.cacheKeyFilter != nil || settings.cacheSerializer != nil {
            var defaults = ImageContext()
            defaults[.imageTransformer] = settings.transformer
            defaults[.cacheKeyFilter] = settings.cacheKeyFilter
            defaults[.cacheSerializer] = settings.cacheSerializer
            context = context.fillingGaps(from: defaults)
        }
        if let processed = settings.optionsProcessor?.process(url, options, context) {
            options = processed.options
            context = processed.context
        }
    }

    /// 6a. The final key in memory, when the cache can answer synchronously and nothing but the
    /// memory answer is wanted: not `.refreshCached` (it loads after answering), `.fromLoaderOnly`
    /// or `.queryMemoryData` (it reads the disk), and memory in the query cache type. Exactly what
    /// the cache's `query` would answer (it takes its memory answer from the same function); nil
    /// goes on to the full query.
    @inline(__always)
    func answerFromMemory() -> ImageResult? {
        guard !options.contains(.refreshCached), !options.contains(.fromLoaderOnly), !options.contains(.queryMemoryData),
            (context[.queryCacheType] ?? .all).includesMemory
        else { return nil }
        let lookup = if let cache = context[.imageCache] { cache.synchronousMemoryLookup } else { manager.memoryLookup }
        guard let image = lookup?.memoryImage(forKey: keys.final, options: options, context: context) else { return nil }
        if !metrics.recordsNothing { metrics.memoryHits.increment() }
        return ImageResult(
            image: image, data: nil, cacheType: .memory, url: url,
            metrics: ImageTaskMetrics(totalDuration: .now - started, cacheType: .memory))
    }

    /// 6b–12. Everything after the memory cache, for `task`, its failure included.
    func load(for task: ImageTask) async {
        var flow = self
        let redactedURL = CredentialRedaction.redacting(url.absoluteString)
        flow.logger[metadataKey: "image.url"] = "\(redactedURL)"
        flow.logger[metadataKey: "cache.key"] = "\(CredentialRedaction.redacting(keys.final))"
        let tracing = LoadTracing(manager.currentSettings.value.tracer)
        flow.tracing = tracing
        let span = tracing.startLoad()
        span.attributes["url.full"] = redactedURL
        flow.span = span
        defer { span.end() }
        await InstrumentationContext.$current.withValue(span.context) {
            do {
                try await flow.loadSteps(for: task)
            } catch let error as ImagePipeError {
                flow.fail(error, task)
            } catch let failure as TransformLimitError {
                flow.fail(failure.error, task)
            } catch is CancellationError {
                flow.fail(.cancelled, task)
            } catch {
                flow.fail(.badImageData(reason: String(describing: error)), task)
            }
        }
    }

    private mutating func loadSteps(for task: ImageTask) async throws {
        let tracing = stepTracing
        // 6–7. Cache queries: the final key, then the original key when a thumbnail or transform is in play.
        var cached: ImageCacheResult?
        if !options.contains(.fromLoaderOnly) {
            let queryStart = ContinuousClock.now
            cached = try await tracing.span("ImagePipe.cache.query") { span in
                let result = await queryFinalKey()
                span.attributes["imagepipe.cache.key"] = "final"
                span.attributes["imagepipe.cache.tier"] = Self.tierName(result?.image == nil ? .none : result?.cacheType ?? .none)
                return result
            }
            taskMetrics.cacheQueryDuration = .now - queryStart
            try checkCancelled(task)
            if cached?.image == nil, keys.final != keys.original, let original = try await queryOriginalKeyTraced(), let image = original.image {
                taskMetrics.cacheQueryDuration = .now - queryStart
                try checkCancelled(task)
                let decoded = DecodedSource(image: image, data: original.data, validators: original.validators)
                let processed = try await transformCached(decoded)
                try await finish(processed, from: original.cacheType, for: task)
                return
            }
            taskMetrics.cacheQueryDuration = .now - queryStart
        }

        // 8. Download decision.
        let loader: any ImageLoader = context[.imageLoader] ?? manager.loader
        switch downloadDecision(cached: cached, loader: loader) {
        case .download:
            break
        case .answerCached:
            if let cached, let image = cached.image {
                complete(ImageResult(image: image, data: cached.data, cacheType: cached.cacheType, url: url), task)
            } else {
                // A cache-only miss or a veto: no image and no error (SDWebImage).
                complete(ImageResult(image: nil, data: nil, cacheType: .none, url: url), task)
            }
            return
        case .noLoader:
            if let cached, let image = cached.image {
                complete(ImageResult(image: image, data: cached.data, cacheType: cached.cacheType, url: url), task)
                return
            }
            // A forgotten plugin, not a miss. Not blocked: registering the loader makes the URL load.
            throw ImagePipeError.invalidURL(url.absoluteString)
        }
        if let cachedImage = cached?.image, options.contains(.refreshCached) {
            let first = ImageResult(image: cachedImage, data: cached?.data, cacheType: cached?.cacheType ?? .none, url: url)
            task.emit(.completed(withMetrics(first)), terminal: false)
            context[.loaderCachedImage] = cachedImage
            // The loader asks "changed since?" with what the cache kept; a 304 ends the task here.
            context[.cacheValidators] = cached?.validators
        } else {
            context[.cacheValidators] = nil
        }
        let processed: ProcessedSource
        do {
            processed = try await download(loader: loader, for: task)
        } catch let error as ImagePipeError {
            try handleLoadFailure(error, loader: loader, hadCachedImage: cached?.image != nil, task: task)
            return
        }
        if options.contains(.retryFailed) { manager.blockedURLs.remove(url) }

        // 10–12. Store, complete.
        try await finish(processed, from: .none, for: task)
    }

    // MARK: Steps

    /// 6. The final key, with the thumbnail options removed: data under a thumbnail key is already
    /// small, and decoding it as a thumbnail again would promote it under the wrong key.
    private func queryFinalKey() async -> ImageCacheResult? {
        let cache: any ImageCache = context[.imageCache] ?? manager.cache
        var queryContext = context
        queryContext[.thumbnailPixelSize] = nil
        queryContext[.preserveAspectRatio] = nil
        let type = context[.queryCacheType] ?? .all
        guard type != .none else { return nil }
        let result = await cache.query(key: keys.final, options: options, context: queryContext, cacheType: type)
        countLookup(result, asked: type)
        return result
    }

    private func queryOriginalKeyTraced() async throws -> ImageCacheResult? {
        try await stepTracing.span("ImagePipe.cache.query") { span in
            let result = await queryOriginalKey()
            span.attributes["imagepipe.cache.key"] = "original"
            span.attributes["imagepipe.cache.tier"] = Self.tierName(result?.cacheType ?? .none)
            return result
        }
    }

    /// The tier that answered, as spans and logs name it.
    static func tierName(_ type: ImageCacheType) -> String {
        switch type {
        case .memory: "memory"
        case .disk: "disk"
        case .none: "miss"
        default: "all"
        }
    }

    /// 7. The original key with the full context, so the cache decodes full-size data as a thumbnail.
    private func queryOriginalKey() async -> ImageCacheResult? {
        let cache: any ImageCache = context[.originalImageCache] ?? context[.imageCache] ?? manager.cache
        let type = context[.originalQueryCacheType] ?? .disk
        guard type != .none else { return nil }
        let result = await cache.query(key: keys.original, options: options, context: context, cacheType: type)
        countLookup(result, asked: type)
        return result?.image == nil ? nil : result
    }

    private enum DownloadDecision { case download, answerCached, noLoader }

    /// 8. Download unless cache-only, unless there is a cached image (without `.refreshCached`),
    /// unless vetoed, and only if the loader takes the URL.
    private func downloadDecision(cached: ImageCacheResult?, loader: any ImageLoader) -> DownloadDecision {
        guard !options.contains(.fromCacheOnly) else { return .answerCached }
        guard cached?.image == nil || options.contains(.refreshCached) else { return .answerCached }
        if let veto = manager.currentSettings.value.shouldDownload, !veto(url) { return .answerCached }
        return loader.canLoad(url, options: options, context: context) ? .download : .noLoader
    }

    /// 8d. A failed load completes with its error, except a `cacheNotModified` after the cached image
    /// was delivered (no second callback); permanent failures go on the blocked-URL list.
    private func handleLoadFailure(_ error: ImagePipeError, loader: any ImageLoader, hadCachedImage: Bool, task: ImageTask) throws {
        if error == .cacheNotModified && hadCachedImage && options.contains(.refreshCached) {
            task.finishWithoutEvent()
            return
        }
        if error != .cancelled {
            let block =
                manager.currentSettings.value.shouldBlockURL?(url, error)
                ?? loader.shouldBlockURL(url, error: error, options: options, context: context)
            if block {
                let settings = manager.currentSettings
                manager.blockedURLs.insert(url, lifetime: settings.value.blockedURLLifetime, capacity: settings.value.maxBlockedURLs)
                logger.notice(
                    "URL blocked after a permanent failure; the retryFailed option tries it again",
                    metadata: ["error.kind": "\(error.kind)"])
            }
        }
        throw error
    }

    /// 8–9. Download, decode and transform, each stage shared with identical requests in flight.
    /// The stages are chained (the transform's work awaits the decode, whose work awaits the download),
    /// so requests meet at the first stage they have in common, however late they arrive; progress
    /// travels up the chain to every joiner. The loader is called with the options of the request
    /// that started the download (SDWebImage's rule): partial bytes for progressive decoding reach a
    /// joiner only if that request asked for them too.
    private func download(loader: any ImageLoader, for task: ImageTask) async throws -> ProcessedSource {
        let url = self.url
        let decodeOptions = decodeOptions(cacheKey: keys.original)
        // The loader may stop once the first frame is in (only the manager sets this key).
        let firstFrame = decodeOptions.firstFrameOnly ? FirstFrameLoad(coder: self.context[.imageCoder] ?? manager.coders) : nil
        let context = self.context.with(.firstFrameLoad, firstFrame)
        let download = downloadIdentity(loader: loader, firstFrameOnly: decodeOptions.firstFrameOnly)
        let decode = DecodeIdentity(download: download, options: decodeOptions)
        let (manager, options, metrics, logger) = (self.manager, self.options, self.metrics, self.logger)
        let tracing = stepTracing
        let priority = Self.taskPriority(options)
        let progressive = options.contains(.progressiveLoad) ? ProgressiveDecoding(flow: self, task: task, cacheKey: keys.original) : nil
        let onProgress: @Sendable (ImageLoadProgress) -> Void = { progress in
            task.emit(.progress(ImageLoadProgress(receivedBytes: progress.receivedBytes, expectedBytes: progress.expectedBytes)), terminal: false)
            if let partial = progress.partialData { progressive?.feed(partial) }
        }
        let decoded: @Sendable (@escaping @Sendable (ImageLoadProgress) -> Void) async throws -> DecodedSource = { report in
            let (shared, joinedDecode) = try await manager.decodes.joinedValue(for: decode, priority: priority, onProgress: report) { reportDecode in
                let loadStart = ContinuousClock.now
                let (loaded, joinedDownload) = try await manager.downloads.joinedValue(for: download, priority: priority, onProgress: reportDecode) { reportDownload in
                    try await tracing.span("ImagePipe.fetch") { span in
                        let loaded = try await loader.load(url, options: options, context: context, progress: reportDownload)
                        metrics.loads.increment()
                        metrics.loadedBytes.increment(by: loaded.data.count)
                        span.attributes["imagepipe.fetch.bytes"] = Int64(loaded.data.count)
                        return loaded
                    }
                }
                if joinedDownload { metrics.downloadJoins.increment() }
                let decodeStart = ContinuousClock.now
                var (image, workStart, workEnd) = try await tracing.span("ImagePipe.decode") { span in
                    let (image, workStart, workEnd) = try await manager.coders.decodeImage(loaded.data, options: decodeOptions, context: context) { work in
                        try await manager.cpu.run {
                            let start = ContinuousClock.now
                            let image = try PipelineMetrics.time(metrics.loaderDecodeDuration, work)
                            return (image, start, ContinuousClock.now)
                        }
                    }
                    span.describe(image)
                    return (image, workStart, workEnd)
                }
                // Whatever follows the first frame was never seen: the image cannot claim the file's metadata.
                if loaded.isPrefix { image.metadata.hasUnreadMetadata = true }
                let stages = ImageTaskMetrics(
                    loadDuration: decodeStart - loadStart, decodeWaitDuration: workStart - decodeStart, decodeDuration: workEnd - workStart,
                    loadedBytes: loaded.data.count, isCoalesced: joinedDownload)
                return DecodedSource(
                    image: image, data: loaded.isPrefix ? nil : loaded.data, validators: loaded.response?.cacheValidators,
                    isPrefix: loaded.isPrefix, metrics: stages)
            }
            var source = shared
            if joinedDecode {
                metrics.decodeJoins.increment()
                source.metrics.isCoalesced = true
            }
            return source
        }
        guard let transformer = keys.transformer else {
            return ProcessedSource(decoded: try await decoded(onProgress), transformed: nil)
        }
        let transform = TransformIdentity(
            source: .download(decode), transformerKey: transformer.key,
            transformsAnimatedImages: options.contains(.transformAnimatedImage))
        let (shared, joined) = try await manager.transforms.joinedValue(for: transform, priority: priority, onProgress: onProgress) { report in
            try await Self.transform(try await decoded(report), with: transformer, identity: transform, manager: manager, tracing: tracing, logger: logger)
        }
        return joinedTransform(shared, joined: joined)
    }

    /// 9, for an original found in a cache: the transform (shared with identical requests).
    private func transformCached(_ decoded: DecodedSource) async throws -> ProcessedSource {
        guard let transformer = keys.transformer else { return ProcessedSource(decoded: decoded, transformed: nil) }
        let identity = TransformIdentity(
            source: .cache(key: keys.original, options: decodeOptions(cacheKey: keys.original)),
            transformerKey: transformer.key, transformsAnimatedImages: options.contains(.transformAnimatedImage))
        let (manager, logger, tracing) = (self.manager, self.logger, stepTracing)
        let (shared, joined) = try await manager.transforms.joinedValue(for: identity) { _ in
            try await Self.transform(decoded, with: transformer, identity: identity, manager: manager, tracing: tracing, logger: logger)
        }
        return joinedTransform(shared, joined: joined)
    }

    /// A limit the transform ran into. It fails the request but is not the URL's fault, so it
    /// passes the blocked-URL step by not being an `ImagePipeError` until `load(for:)` reports it.
    private struct TransformLimitError: Error {
        let error: ImagePipeError
    }

    /// 9. Runs the transformer, unless the image is animated and the request did not allow it, and
    /// keeps the source's metadata when the transformer says so. A failing transformer gives no
    /// output: the image goes on untransformed (SDWebImage's nil result), is not stored under the
    /// transformed key, and the failure is logged as a warning. A limit the transform would exceed
    /// (an output over the pixel limit) fails the request instead: the caller asked for that output,
    /// and the untransformed image is not it.
    private static func transform(
        _ source: DecodedSource, with transformer: any ImageTransformer, identity: TransformIdentity, manager: ImageManager, tracing: LoadTracing,
        logger: Logger
    ) async throws -> ProcessedSource {
        if source.image.isAnimated && !identity.transformsAnimatedImages { return ProcessedSource(decoded: source, transformed: nil) }
        // Transformers hold their output to the pixel limit the image carries; an original from the
        // memory cache carries the limit of whichever request decoded it, so this request's is set.
        var input = source.image
        if case .cache(_, let options) = identity.source {
            var carried = input.metadata.decodeOptions ?? ImageDecodeOptions()
            carried.maxPixels = options.maxPixels
            input.metadata.decodeOptions = carried
        }
        let start = ContinuousClock.now
        let timer = manager.currentSettings.value.metrics.transformDuration
        do {
            let output = try await tracing.span("ImagePipe.transform") { span in
                span.attributes["imagepipe.transformer"] = transformer.key
                let output = try await manager.cpu.run { [input] in try PipelineMetrics.time(timer) { try transformer.apply(to: input) } }
                span.describe(output)
                return output
            }
            return ProcessedSource(decoded: source, transformed: output, transformDuration: .now - start)
        } catch let error as ImagePipeError {
            if case .limitExceeded = error { throw TransformLimitError(error: error) }
            logger.warning("transformer failed; the image goes on untransformed: \(error)", metadata: ["transformer.key": "\(transformer.key)"])
        } catch {
            logger.warning("transformer failed; the image goes on untransformed: \(error)", metadata: ["transformer.key": "\(transformer.key)"])
        }
        return ProcessedSource(decoded: source, transformed: nil, transformDuration: .now - start)
    }

    /// 10–12. Store the original and the final image, complete.
    private func finish(_ processed: ProcessedSource, from cacheType: ImageCacheType, for task: ImageTask) async throws {
        let source = processed.decoded
        let finalImage = processed.transformed ?? source.image
        // A thumbnail's or transformed image's bytes no longer describe it; they are stored only as the original.
        let finalData = processed.transformed != nil || source.image.isThumbnail ? nil : source.data
        try checkCancelled(task)
        let storeFinal = keys.final != keys.original && (processed.transformed != nil || keys.transformer == nil)
        // Both entries keep the source's validators (or none): either may be the one revalidated.
        var storing = self
        storing.context[.cacheValidators] = source.validators
        let stores = Task { [storing] in
            await storing.storeOriginal(source, from: cacheType)
            if storeFinal { await storing.storeFinal(finalImage, data: finalData) }
        }
        var flow = self
        flow.taskMetrics.merge(processed.metrics)
        if options.contains(.waitStoreCache) {
            let storeStart = ContinuousClock.now
            await stores.value
            flow.taskMetrics.storeDuration = .now - storeStart
        }
        flow.complete(ImageResult(image: finalImage, data: finalData, cacheType: cacheType, url: url), task)
    }

    /// 10. The original image and bytes under the original key (default: disk only). Bytes just read
    /// from disk are not written back. With neither thumbnail nor transform, the final key is the
    /// same: one store covers both types, so the bytes are written once (upstream writes them twice).
    private func storeOriginal(_ source: DecodedSource, from cacheType: ImageCacheType) async {
        let cache: any ImageCache = context[.originalImageCache] ?? context[.imageCache] ?? manager.cache
        var type = context[.originalStoreCacheType] ?? .disk
        // A thumbnail, pixels kept out of sRGB by a non-default colour handling, or kept metadata,
        // is not what the original key stands for: only the bytes are stored under it.
        let decodeOptions = source.image.metadata.decodeOptions
        let keptColors = (decodeOptions?.colorHandling ?? .default) != .default
        let keptMetadata = (decodeOptions?.metadataHandling ?? .default) != .default
        var image: Image? = source.image.isThumbnail || keptColors || keptMetadata ? nil : source.image
        if keys.final == keys.original {
            let finalType = context[.storeCacheType] ?? .all
            type = ImageCacheType(memory: type.includesMemory || finalType.includesMemory, disk: type.includesDisk || finalType.includesDisk)
            image = source.image
        }
        if cacheType == .disk || source.isPrefix { type = type.removingDisk }
        if cacheType == .memory { return }
        guard type != .none else { return }
        let data = serialize(image ?? source.image, data: source.data, type: type)
        await cache.store(image, data: data, key: keys.original, options: options, context: context, cacheType: type)
    }

    /// 11. The final (thumbnail or transformed) image under the final key (default: memory and disk);
    /// without bytes, the cache encodes it.
    private func storeFinal(_ image: Image, data: Data?) async {
        let cache: any ImageCache = context[.imageCache] ?? manager.cache
        let type = context[.storeCacheType] ?? .all
        guard type != .none else { return }
        let bytes = serialize(image, data: data, type: type)
        await cache.store(image, data: bytes, key: keys.final, options: options, context: context, cacheType: type)
    }

    /// The cache serializer's bytes when the disk is written, else the bytes as they are.
    private func serialize(_ image: Image, data: Data?, type: ImageCacheType) -> Data? {
        guard type.includesDisk, let serializer = context[.cacheSerializer] else { return data }
        return serializer.serialize(image, data, url) ?? data
    }

    /// 12. Completes once.
    private func complete(_ result: ImageResult, _ task: ImageTask) {
        if let span {
            span.attributes["imagepipe.cache.tier"] = Self.tierName(result.cacheType)
            if let image = result.image { span.describe(image) }
        }
        task.emit(.completed(withMetrics(result)), terminal: true)
    }

    // MARK: Helpers

    func decodeOptions(cacheKey: String) -> ImageDecodeOptions {
        ImageDecodeOptions(options: options, context: context, cacheKey: cacheKey)
    }

    private func checkCancelled(_ task: ImageTask) throws {
        if Task.isCancelled || task.isFinished { throw ImagePipeError.cancelled }
    }

    /// This request's download, as `DownloadIdentity` defines it.
    private func downloadIdentity(loader: any ImageLoader, firstFrameOnly: Bool) -> DownloadIdentity<LoaderRequest> {
        // `_typeName` spells what `String(reflecting:)` would, without its protocol-conformance
        // lookups: each is a scan of every conformance in the program on its first use.
        let request = LoaderRequest(
            url: url.absoluteString, loader: _typeName(type(of: loader), qualified: true),
            unique: context.preventsCoalescing ? UInt64.random(in: 0...UInt64.max) : nil,
            firstFrameOnly: firstFrameOnly)
        return DownloadIdentity(request: request, options: options)
    }

    static func taskPriority(_ options: ImageOptions) -> TaskPriority? {
        switch ImageLoadPriority(options: options) {
        case .high: .high
        case .low: .low
        case .normal: nil
        }
    }
}
