import Crypto
import Dispatch
import Foundation
import ImagePipe
import LoaderHTTP
import Logging
import PipelineCore
import Tracing

/// Turns a parsed, allowed request into encoded bytes: the output caches first, then the manager
/// (sources on disk, coalesced fetch, decode and transform) and an encode, or without a disk cache
/// the loader and one decode-transform-encode step. The only place the server touches the pipeline.
final class ImageRenderer: Sendable {
    let configuration: ImageServerConfiguration
    let coders: ImageCodersManager
    let formats: OutputFormats
    let loader: SourceLoader
    let manager: ImageManager
    /// The server's watermark, prepared once.
    let watermark: Watermark?
    let memoryOutputs: MemoryCache<String, RenderedImage>?
    let diskCache: DiskCache?
    /// The fleet's tier of results and purge generations, when the server is in one.
    let shared: (any SharedResultStore)?
    let sharedOutages = SharedTierOutages()
    let metrics: ServerMetrics
    let logger: Logger
    /// Requests reserve their `WorkingMemoryEstimate` here before they take a worker.
    let workingMemory: DecodeMemoryBudget

    /// One request's work: where from, what to do, and the format when the URL or `Accept` chose one.
    struct Job: Sendable {
        var source: URL
        var options: ProcessingOptions
        var format: ImageFormat?
        /// Source formats answered with the source's bytes (`skp:`, less those the URL converts).
        var skipProcessing: [ImageFormat] = []
        /// The digest of the watermark `wm:` draws, when it draws one.
        var watermark: String?
        /// The source's purge generation (`SharedResultStore.purgeGeneration(of:)`), or while the
        /// fleet's tier cannot be asked a token of this outage; empty without a tier or a purge.
        var generation = ""
        /// Whether the result is looked up in, and stored to, the fleet's tier.
        var sharesResult = false
        /// The client's validators the origin is asked with (`OriginConditions`): its 304 fails
        /// the render with `ServiceError.notModified`. Not part of the key: the result is the same.
        var originConditions: [String: String] = [:]

        /// The output caches' key: the source, the options in canonical form, the format (or that
        /// the source's format decides), the quality, the watermark and the purge generation.
        func key(defaultQuality: Int) -> String {
            "\(source.absoluteString)\n\(options.canonical)\n\(format?.identifier ?? "source")\nq\(options.quality ?? defaultQuality)\(watermark.map { "\nwm" + $0 } ?? "")\(generation.isEmpty ? "" : "\n" + generation)"
        }
    }

    /// Where an answer came from, for the metrics and the access log.
    enum Tier: String, Sendable {
        case memory, disk, shared, source, origin
    }

    init(configuration: ImageServerConfiguration, coders: ImageCodersManager, metrics: ServerMetrics, logger: Logger) {
        self.configuration = configuration
        self.coders = coders
        self.formats = OutputFormats(coders: coders, configuration: configuration)
        watermark = configuration.watermark.flatMap { try? Watermark(image: $0, opacity: configuration.watermarkOpacity) }
        self.metrics = metrics
        self.logger = logger
        workingMemory = DecodeMemoryBudget(limitBytes: configuration.maxWorkingMemory, limit: .workingMemory)
        let prefixes = configuration.allowedSources
        loader = SourceLoader(configuration: configuration, metrics: metrics) { SourcePolicy.isAllowed($0, by: prefixes) }
        memoryOutputs = configuration.memoryLimit > 0 ? MemoryCache(costLimit: configuration.memoryLimit) : nil
        shared = configuration.sharedResults?(metrics.factory)
        // The pipeline's metrics go to the server's registry, so `/metrics` shows them.
        let pipelineMetrics = PipelineMetrics(factory: metrics.factory)
        let cache: any ImageCache
        if let directory = configuration.cacheDirectory {
            let disk = DiskCache(directory: directory, configuration: DiskCache.Configuration(logger: logger, metrics: pipelineMetrics))
            diskCache = disk
            // Sources go to disk as fetched; decoded images are not kept (the encoded results are).
            cache = DefaultImageCache(memoryCache: MemoryCache(costLimit: 0), diskCache: disk, coders: coders)
        } else {
            diskCache = nil
            cache = ImageCachesManager()
        }
        manager = ImageManager(cache: cache, loader: loader, coders: coders, cpuConcurrency: configuration.workers)
        manager.settings.metrics = pipelineMetrics
    }

    /// The result of `job` when an output cache on this server holds it (memory, else disk,
    /// whose ETag is read without the bytes): what a 200 would answer without asking the origin,
    /// so it answers a conditional request the same way.
    func cachedResult(for job: Job) -> (etag: String, lastModified: String?)? {
        let key = job.key(defaultQuality: configuration.defaultQuality)
        if let cached = memoryOutputs?.value(forKey: key) { return (cached.etag, cached.lastModified) }
        guard let diskCache, let header = diskCache.extendedData(forKey: Self.diskKey(key)),
            let etag = RenderedImage.etag(diskHeader: header)
        else { return nil }
        return (etag, nil)
    }

    /// The answer to `job`: from the output caches (memory, disk, the fleet's), else fetched
    /// holding `admission`'s place and processed holding a worker, once across the fleet.
    func render(_ job: Job, admission: WorkLimiter.Admission) async throws(ServiceError) -> (RenderedImage, Tier) {
        let key = job.key(defaultQuality: configuration.defaultQuality)
        if let cached = memoryOutputs?.value(forKey: key) {
            return (cached, .memory)
        }
        if let diskCache, let data = diskCache.data(forKey: Self.diskKey(key)),
            let header = diskCache.extendedData(forKey: Self.diskKey(key)),
            let cached = RenderedImage(data: data, diskHeader: header, formats: formats.named)
        {
            memoryOutputs?.set(cached, forKey: key, cost: cached.memoryCost(forKey: key))
            return (cached, .disk)
        }
        guard job.sharesResult, let shared else { return try await renderHere(job, key: key, admission: admission) }
        return try await renderInFleet(job, key: key, shared: shared, admission: admission)
    }

    /// `job` rendered on this server, kept in its memory and on its disk.
    func renderHere(_ job: Job, key: String, admission: WorkLimiter.Admission) async throws(ServiceError) -> (RenderedImage, Tier) {
        let start = ContinuousClock.now
        let (data, format, tier): (Data, ImageFormat, Tier)
        if diskCache == nil || !job.skipProcessing.isEmpty {
            (data, format) = try await renderDirectly(job, admission: admission)
            tier = .origin
        } else {
            // Sources on disk go through the manager, which fetches them holding the worker.
            (data, format, tier) = try await Self.processing(admission) { () async throws(ServiceError) in
                let (image, tier) = try await load(job)
                let format = job.format ?? formats.fallback(for: image)
                // The manager's decode held the coders' budget; the encode holds this one.
                let data = try await holdingWorkingMemory(WorkingMemoryEstimate.encodeBytes(of: image, as: format, coders: coders)) { () async throws(ServiceError) in
                    try await encode(image, as: format, options: encodeOptions(job, format: format), processing: job.options)
                }
                return (data, format, tier)
            }
        }
        let source = loader.validators.value(forKey: job.source.absoluteString)
        let validator = source?.validator ?? "sha256:" + Data(SHA256.hash(data: data)).base64URLEncodedWithoutPadding
        let rendered = RenderedImage(data: data, format: format, etag: ResultETag.make(validator: validator, key: key), lastModified: source?.lastModified)
        metrics.processingDuration.recordNanoseconds(ServerMetrics.nanoseconds(ContinuousClock.now - start))
        memoryOutputs?.set(rendered, forKey: key, cost: rendered.memoryCost(forKey: key))
        if let diskCache {
            // A small atomic write; done before answering so the next server finds it.
            do {
                try diskCache.setData(rendered.data, forKey: Self.diskKey(key), extendedData: rendered.diskHeader)
            } catch {
                logger.warning("could not keep a result on disk: \(error)")
            }
        }
        return (rendered, tier)
    }

    /// The options and context `job` runs through the manager with: the source limits, a reduced
    /// decode where safe, the transformer, and only sources kept by the pipeline's caches (on disk;
    /// results are kept encoded).
    func requestParameters(for job: Job) -> (ImageOptions, ImageContext) {
        var context = ImageContext()
        var decodeOptions = ImageDecodeOptions()
        let limits = job.options.limits
        decodeOptions.maxPixels = limits.maxSourcePixels
        // imgproxy sums an animation's frames against the source limit, unless each frame has one.
        decodeOptions.maxAnimationPixels = limits.maxFramePixels > 0 ? ImageDecodeOptions.defaultMaxAnimationPixels : limits.maxSourcePixels
        decodeOptions.maxAnimationFramePixels = limits.maxFramePixels
        // What `kcr:` keeps is read with the rest, and the rest dropped before the encode.
        decodeOptions.metadataHandling = job.options.stripMetadata && !job.options.keepCopyright ? .strip : .keep
        if !job.options.stripColorProfile { decodeOptions.colorHandling = .keepSourceProfile }
        if job.options.enforceThumbnail { decodeOptions.extras = configuration.embeddedThumbnailExtras }
        // One frame allowed means animations become their first frame (imgproxy), not a refusal.
        decodeOptions.firstFrameOnly = limits.maxFrames <= 1
        if !decodeOptions.firstFrameOnly { decodeOptions.maxFrames = limits.maxFrames }
        if limits.maxSourceBytes > 0 && limits.maxSourceBytes != configuration.maxSourceBytes { context[.sourceByteLimit] = limits.maxSourceBytes }
        context[.decodeOptions] = decodeOptions
        if !job.originConditions.isEmpty { context[.requestModifier] = .setting(headers: job.originConditions) }
        context[.thumbnailPixelSize] = Self.decodeBox(for: job.options)
        let transformer: any ImageTransformer =
            job.options.changesPixels
            ? ProcessingTransformer(options: job.options, maxOutputPixels: configuration.maxOutputPixels, watermark: watermark)
            : NoImageTransformer()
        context[.imageTransformer] = transformer
        context[.queryCacheType] = ImageCacheType.none
        context[.storeCacheType] = ImageCacheType.none
        context[.originalQueryCacheType] = .disk
        context[.originalStoreCacheType] = .disk
        // Sources kept on disk before a purge are not the purged source's copies after it.
        if !job.generation.isEmpty {
            let generation = job.generation
            context[.cacheKeyFilter] = ImageCacheKeyFilter { url in url.absoluteString + "\n" + generation }
        }
        var options: ImageOptions = diskCache == nil ? [] : [.waitStoreCache]
        if limits.maxFrames > 1 { options.insert(.transformAnimatedImage) } else { options.insert(.decodeFirstFrameOnly) }
        return (options, context)
    }

    /// `job` with no disk cache, past the manager (whose other stages would keep nothing): the
    /// source is fetched holding no worker (the HTTP loader shares identical transfers, the handler
    /// identical renders), then decoded, transformed and encoded in one go, on one Dispatch thread,
    /// holding one worker.
    private func renderDirectly(_ job: Job, admission: WorkLimiter.Admission) async throws(ServiceError) -> (Data, ImageFormat) {
        let (options, context) = requestParameters(for: job)
        let spans = RenderSpans()
        let loaded = try await spans.run("ImageServer.fetch") { (span) async throws(ServiceError) in
            let loaded = try await fetch(job.source, options: options, context: context)
            span?.attributes["imagepipe.fetch.bytes"] = Int64(loaded.data.count)
            return loaded
        }
        // Counted as the manager's path counts them, so `/metrics` says the same without a disk cache.
        let metrics = manager.settings.metrics
        metrics.loads.increment()
        metrics.loadedBytes.increment(by: loaded.data.count)
        let sourceFormat = ImageFormat.detect(in: loaded.data)
        if job.skipProcessing.contains(sourceFormat) { return (loaded.data, sourceFormat) }
        if job.format == OutputFormats.svgPassThrough {
            throw ServiceError(status: 422, reason: "only an SVG source can be answered as SVG (it is passed through unchanged)")
        }
        let encodeOptions: @Sendable (ImageFormat) -> ImageEncodeOptions = { [self] format in self.encodeOptions(job, format: format) }
        // The options the manager would decode with: its original key is the source URL.
        let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: job.source.absoluteString)
        let transformer = job.options.changesPixels ? context[.imageTransformer] : nil
        let estimate = WorkingMemoryEstimate.bytes(
            decode: coders.decodeEstimate(for: loaded.data, options: decodeOptions), options: job.options, format: job.format ?? sourceFormat, coders: coders)
        return try await holdingWorkingMemory(estimate) { () async throws(ServiceError) in
            try await decodeTransformEncode(
                loaded.data, job: job, decodeOptions: decodeOptions, context: context, transformer: transformer,
                admission: admission, spans: spans, encodeOptions: encodeOptions)
        }
    }

    /// `work` holding `bytes` of the working-memory budget, waiting for them first (without a
    /// worker) while other requests hold it; a request larger than the whole budget is refused.
    private func holdingWorkingMemory<T>(_ bytes: Int, _ work: () async throws(ServiceError) -> T) async throws(ServiceError) -> T {
        do {
            return try await workingMemory.withReservation(of: bytes) { () async throws in try await work() }
        } catch let error as ServiceError {
            throw error
        } catch ImagePipeError.limitExceeded(.workingMemory, let value, let maximum) {
            logger.warning(
                "a request needs an estimated \(value) bytes, over --max-working-memory (ImageServerConfiguration.maxWorkingMemory) of \(maximum)")
            throw ServiceError(.limitExceeded(.workingMemory, value: value, maximum: maximum))
        } catch {
            throw Self.serviceError(error, otherwise: .cancelled)
        }
    }

    /// The decode, transform and encode of `data` in one go, holding a worker.
    private func decodeTransformEncode(
        _ data: Data, job: Job, decodeOptions: ImageDecodeOptions, context: ImageContext, transformer: (any ImageTransformer)?,
        admission: WorkLimiter.Admission, spans: RenderSpans, encodeOptions: @escaping @Sendable (ImageFormat) -> ImageEncodeOptions
    ) async throws(ServiceError) -> (Data, ImageFormat) {
        let (coders, formats, logger, metrics) = (self.coders, self.formats, self.logger, manager.settings.metrics)
        do {
            return try await coders.decodeImage(data, options: decodeOptions, context: context) { decode in
                try await Self.processing(admission) { () async throws(ServiceError) in
                    do {
                        return try await CPUWorkQueue.runOffPool {
                            var image = try spans.run("ImageServer.decode") { span in
                                let image = try PipelineMetrics.time(metrics.loaderDecodeDuration) { try decode() }
                                span?.describe(image)
                                return image
                            }
                            if let transformer {
                                image = try spans.run("ImageServer.transform") { span in
                                    span?.attributes["imagepipe.transformer"] = transformer.key
                                    let output = try PipelineMetrics.time(metrics.transformDuration) { try Self.transform(image, with: transformer, logger: logger) }
                                    span?.describe(output)
                                    return output
                                }
                            }
                            if image.orientation != .up { image = try image.applyingOrientation() }
                            // Past its deadline, or with its client gone, nothing is encoded.
                            try DecodeCancellation.checkCurrent()
                            let format = job.format ?? formats.fallback(for: image)
                            let input = Self.encodeInput(image, as: format, options: job.options)
                            let data = try spans.run("ImageServer.encode") { span in
                                span?.attributes["imagepipe.image.format"] = format.identifier
                                let data = try PipelineMetrics.time(metrics.encodeDuration) { try coders.encode(input, as: format, options: encodeOptions(format)) }
                                span?.attributes["imagepipe.encode.bytes"] = Int64(data.count)
                                return data
                            }
                            return (data, format)
                        }
                    } catch {
                        throw Self.serviceError(error, otherwise: .internalError)
                    }
                }
            }
        } catch {
            throw Self.serviceError(error, otherwise: .cancelled)
        }
    }

    /// `image` (the fallback for a source that could not be fetched) transformed and encoded as
    /// `job` asks, holding a worker of `admission`. Its ETag is empty: it is answered without one.
    func renderFallback(_ image: Image, for job: Job, admission: WorkLimiter.Admission) async throws(ServiceError) -> RenderedImage {
        let (_, context) = requestParameters(for: job)
        let transformer = job.options.changesPixels ? context[.imageTransformer] : nil
        let encodeOptions: @Sendable (ImageFormat) -> ImageEncodeOptions = { [self] format in self.encodeOptions(job, format: format) }
        let (coders, formats, logger) = (self.coders, self.formats, self.logger)
        return try await Self.processing(admission) { () async throws(ServiceError) in
            do {
                return try await CPUWorkQueue.runOffPool {
                    var image = image
                    if let transformer { image = try Self.transform(image, with: transformer, logger: logger) }
                    if image.orientation != .up { image = try image.applyingOrientation() }
                    let format = job.format ?? formats.fallback(for: image)
                    let data = try coders.encode(Self.encodeInput(image, as: format, options: job.options), as: format, options: encodeOptions(format))
                    return RenderedImage(data: data, format: format, etag: "")
                }
            } catch {
                throw Self.serviceError(error, otherwise: .internalError)
            }
        }
    }

    /// The transform with the answers the manager's path gives: a limit it would exceed fails the
    /// request with that limit; any other failure is logged and answered 500 (the manager goes on
    /// untransformed, which `load` refuses: the image is not what the URL asked for).
    private static func transform(_ image: Image, with transformer: any ImageTransformer, logger: Logger) throws -> Image {
        do {
            return try transformer.apply(to: image)
        } catch let error as ImagePipeError {
            if case .limitExceeded = error { throw error }
            if error == .cancelled { throw error }
            logger.warning("transformer failed: \(error)", metadata: ["transformer.key": "\(transformer.key)"])
        } catch {
            logger.warning("transformer failed: \(error)", metadata: ["transformer.key": "\(transformer.key)"])
        }
        throw ServiceError.internalError
    }

    /// `work` holding a worker of `admission`; a request cancelled while waiting for one is `cancelled`.
    private static func processing<T>(
        _ admission: WorkLimiter.Admission, _ work: () async throws(ServiceError) -> T
    ) async throws(ServiceError) -> T {
        do {
            return try await admission.process { () async throws in try await work() }
        } catch {
            throw serviceError(error, otherwise: .cancelled)
        }
    }

    /// `error` as the answer: a `ServiceError` as it is, a pipeline error by its kind, anything
    /// else `otherwise`.
    private static func serviceError(_ error: any Error, otherwise: ServiceError) -> ServiceError {
        switch error {
        case let error as ServiceError: error
        case let error as ImagePipeError: ServiceError(error)
        default: otherwise
        }
    }

    /// What is encoded of `image` as `format`: the animation when frames are allowed and the
    /// format can hold them, else the first frame; stripped with `kcr:`, of its EXIF only the
    /// artist and copyright (imgproxy keeps those and its XMP's rights; this server drops XMP).
    private static func encodeInput(_ image: Image, as format: ImageFormat, options: ProcessingOptions) -> Image {
        var input = image.isAnimated && options.limits.maxFrames > 1 && format.supportsAnimation ? image : image.firstFrameOnly()
        if options.stripMetadata && options.keepCopyright {
            let kept = input.metadata.exif.flatMap(ExifEditor.keepingCopyright)
            if kept != input.metadata.exif || input.metadata.xmp != nil {
                (input.metadata.exif, input.metadata.xmp) = (kept, nil)
                input.metadata.removedMetadata = true
            }
        }
        return input
    }

    /// The source through the manager, decoded and transformed.
    private func load(_ job: Job) async throws(ServiceError) -> (Image, Tier) {
        let (options, context) = requestParameters(for: job)
        try checkKeptSourceSize(job, context: context)
        let task = manager.imageTask(with: job.source, options: options, context: context)
        let result: ImageResult
        do {
            result = try await withTaskCancellationHandler {
                try await task.result()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw Self.serviceError(error, otherwise: .cancelled)
        }
        guard var image = result.image else { throw ServiceError.notFound }
        // A transformer that failed leaves the image as it was; that is not what the URL asked for.
        if job.options.changesPixels, !image.metadata.isTransformed { throw ServiceError.internalError }
        if image.orientation != .up {
            do { image = try image.applyingOrientation() } catch { throw ServiceError(error as? ImagePipeError ?? .cancelled) }
        }
        return (image, result.cacheType == .none ? .origin : .source)
    }

    /// `msfs:` holds for a source the disk cache kept as for a download (the loader checks
    /// those): the manager decodes a kept source without asking the loader.
    private func checkKeptSourceSize(_ job: Job, context: ImageContext) throws(ServiceError) {
        guard let limit = context[.sourceByteLimit], let diskCache else { return }
        let key = ImageCacheKey.key(for: job.source, filter: context[.cacheKeyFilter] ?? manager.settings.cacheKeyFilter)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: diskCache.filePath(forKey: key)),
            let size = (attributes[.size] as? NSNumber)?.intValue, size > limit
        else { return }
        throw ServiceError(.limitExceeded(.responseBytes, value: size, maximum: limit))
    }

    /// Encodes off Swift's cooperative pool (an encode takes milliseconds of one core), stopping
    /// when the request is cancelled (its deadline, its client gone) as the decode does.
    private func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions, processing: ProcessingOptions) async throws(ServiceError) -> Data {
        let input = Self.encodeInput(image, as: format, options: processing)
        let (coders, timer) = (self.coders, manager.settings.metrics.encodeDuration)
        let result: Result<Data, ImagePipeError> = await withSpan("ImageServer.encode") { span in
            span.attributes["imagepipe.image.format"] = format.identifier
            let result: Result<Data, ImagePipeError>
            do {
                result = .success(try await CPUWorkQueue.runOffPool { try PipelineMetrics.time(timer) { try coders.encode(input, as: format, options: options) } })
            } catch {
                result = .failure(error as? ImagePipeError ?? .encodingFailed(reason: "\(error)"))
            }
            if case .success(let data) = result { span.attributes["imagepipe.encode.bytes"] = Int64(data.count) }
            return result
        }
        switch result {
        case .success(let data): return data
        case .failure(let error): throw ServiceError(error)
        }
    }

    /// The box to decode into for `fit` with both sides given: a square of the larger side (times
    /// dpr and zoom) holds enough pixels for the fit whatever the source's orientation or a
    /// quarter-turn rotation. Other types, crops and minimum sizes need the full source.
    static func decodeBox(for options: ProcessingOptions) -> ImageSize? {
        guard options.resizingType == .fit, options.width > 0, options.height > 0, options.crop == nil, options.trim == nil,
            options.minWidth == 0, options.minHeight == 0
        else { return nil }
        let side = (Double(max(options.width, options.height)) * options.dpr * max(options.zoomX, options.zoomY, 1)).rounded(.up)
        guard side < Double(1 << 30) else { return nil }
        return ImageSize(width: Int(side), height: Int(side))
    }

    /// The source's bytes as the loader gives them (`raw:1`, `skp:`), holding no worker.
    func fetch(
        _ source: URL, options: ImageOptions = [], context: ImageContext = ImageContext(), progress: (@Sendable (ImageLoadProgress) -> Void)? = nil
    ) async throws(ServiceError) -> ImageLoadResult {
        do {
            guard loader.canLoad(source, options: options, context: context) else { throw ImagePipeError.invalidURL(source.absoluteString) }
            return try await loader.load(source, options: options, context: context, progress: progress)
        } catch {
            throw Self.serviceError(error, otherwise: .cancelled)
        }
    }

    /// The quality (`q:`, else `fq:` for the format, else the server's for the format, else its
    /// default), the background alpha is flattened onto where the format has none, and `mb:`.
    func encodeOptions(_ job: Job, format: ImageFormat) -> ImageEncodeOptions {
        let quality =
            job.options.quality ?? job.options.formatQuality[format.identifier] ?? configuration.formatQuality[format.identifier]
            ?? configuration.defaultQuality
        return ImageEncodeOptions(
            quality: Double(quality) / 100, maxFileSize: job.options.maxBytes > 0 ? job.options.maxBytes : nil,
            backgroundColor: job.options.background ?? .white, extras: configuration.encodeExtras)
    }

    static func diskKey(_ key: String) -> String { "imagepipe-serve-output:" + key }
}
