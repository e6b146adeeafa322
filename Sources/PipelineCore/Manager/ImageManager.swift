import Foundation
import Synchronization

/// Ties caches, loaders, coders and transformers together (SDWebImage's `SDWebImageManager`):
/// cache query, load, decode, transform, store, complete. The flow itself reads top to bottom in
/// `ImageLoadFlow`.
///
/// Identical requests in flight share their download, their decode (same decode options) and their
/// transform (same transformer key); cancelling one caller never cancels the others.
public final class ImageManager: Sendable {
    /// The manager over the shared registries: `ImageCachesManager.shared` and
    /// `ImageLoadersManager.shared`, into which caches and loader plugins register.
    public static let shared = ImageManager()

    public let cache: any ImageCache
    public let loader: any ImageLoader
    public let coders: ImageCodersManager
    /// URLs blocked after a failure a retry cannot fix; see `ImageOptions.retryFailed`.
    public let blockedURLs = BlockedURLList()

    /// Settings that apply to every request unless its context says otherwise.
    public struct Settings: Sendable {
        public var transformer: (any ImageTransformer)?
        public var cacheKeyFilter: ImageCacheKeyFilter?
        public var cacheSerializer: ImageCacheSerializer?
        public var optionsProcessor: ImageOptionsProcessor?
        /// SDWebImage's delegate `shouldDownloadImageForURL`: false skips the download.
        public var shouldDownload: (@Sendable (URL) -> Bool)?
        /// SDWebImage's delegate `shouldBlockFailedURL`: overrides the loader's answer.
        public var shouldBlockURL: (@Sendable (URL, ImagePipeError) -> Bool)?
        public init() {}
    }

    private let settingsStorage = Mutex(Settings())
    public var settings: Settings {
        get { settingsStorage.withLock { $0 } }
        set { settingsStorage.withLock { $0 = newValue } }
    }

    let downloads = CoalescingStage<DownloadKey, ImageLoadResult, ImageLoadProgress>()
    let decodes = CoalescingStage<DecodeKey, DecodedSource, ImageLoadProgress>()
    let transforms = CoalescingStage<TransformKey, ProcessedSource, ImageLoadProgress>()
    let cpu: CPUWorkQueue
    private let running = Mutex<Set<ImageTask>>([])

    /// - Parameter cpuConcurrency: decodes and transforms run at once at most; default one per core.
    public init(
        cache: any ImageCache = ImageCachesManager.shared,
        loader: any ImageLoader = ImageLoadersManager.shared,
        coders: ImageCodersManager = .shared,
        cpuConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.cache = cache
        self.loader = loader
        self.coders = coders
        self.cpu = CPUWorkQueue(limit: cpuConcurrency)
    }

    // MARK: Loading

    /// Starts a load and returns its handle at once.
    @discardableResult
    public func imageTask(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        onEvent: (@Sendable (ImageTaskEvent) -> Void)? = nil
    ) -> ImageTask {
        let task = ImageTask(url: url, onEvent: onEvent)
        let flow = ImageLoadFlow(manager: self, task: task, url: url, options: options, context: context)
        running.withLock { _ = $0.insert(task) }
        let work = Task { await flow.run() }
        task.start(work) { [weak self] in
            _ = self?.running.withLock { $0.remove(task) }
        }
        return task
    }

    /// Loads an image; cancelling the calling task cancels the load. Returns the final result (with
    /// `.refreshCached`, the revalidated one); a `.fromCacheOnly` miss returns a result without image.
    /// A plain memory-cache hit returns at once, without starting a task (`memoryCacheHit`).
    ///
    /// It takes no closure on purpose: `loadImage(with: url) { … }` always means the callback form.
    /// For progress, use `imageTask(with:options:context:onEvent:)` and await its `result()`.
    public func loadImage(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext()
    ) async throws -> ImageResult {
        // A cancelled caller takes the task path, which answers `cancelled` as before.
        if !Task.isCancelled, let hit = memoryCacheHit(url: url, options: options, context: context) {
            return hit
        }
        let task = imageTask(with: url, options: options, context: context)
        return try await withTaskCancellationHandler {
            try await task.result()
        } onCancel: {
            task.cancel()
        }
    }

    /// SDWebImage's callback form: `completed` runs on the context's `.callbackExecutor` (default:
    /// at once), once — or, with `.refreshCached`, first with the cached image — and with
    /// `isFinished == false` for partial images of a progressive load.
    @discardableResult
    public func loadImage(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (ImageLoadProgress) -> Void)? = nil,
        completed: @escaping @Sendable (Result<ImageResult, ImagePipeError>) -> Void
    ) -> ImageTask {
        let executor: any CallbackExecutor = context[.callbackExecutor] ?? ImmediateCallbackExecutor()
        return imageTask(with: url, options: options, context: context) { event in
            switch event {
            case .progress(let value): progress?(value)
            case .partialImage(let image):
                executor.execute { completed(.success(ImageResult(image: image, data: nil, cacheType: .none, url: url, isFinished: false))) }
            case .completed(let result): executor.execute { completed(.success(result)) }
            case .failed(let error): executor.execute { completed(.failure(error)) }
            }
        }
    }

    /// Cancels every running load.
    public func cancelAll() {
        for task in running.withLock({ Array($0) }) { task.cancel() }
    }

    public var isRunning: Bool { running.withLock { !$0.isEmpty } }
    public var runningCount: Int { running.withLock { $0.count } }

    // MARK: Keys

    /// The key a request's final image is cached under: the URL through the key filter, then the
    /// thumbnail suffix, then the transformer's key (SDWebImage's `cacheKeyForURL:context:`).
    public func cacheKey(for url: URL?, context: ImageContext = ImageContext()) -> String {
        ImageCacheKeys(url: url, context: context, settings: settings).final
    }
}

/// The keys of one request, derived once.
struct ImageCacheKeys {
    /// The URL through the key filter: where the original image lives.
    let original: String
    /// `original` plus the thumbnail and transformer suffixes.
    let final: String
    let transformer: (any ImageTransformer)?

    init(url: URL?, context: ImageContext, settings: ImageManager.Settings) {
        let filter = context[.cacheKeyFilter] ?? settings.cacheKeyFilter
        original = url.map { ImageCacheKey.key(for: $0, filter: filter) } ?? ""
        let chosen = context[.imageTransformer] ?? settings.transformer
        transformer = chosen is NoImageTransformer ? nil : chosen
        var key = original
        if let size = context[.thumbnailPixelSize], !size.isEmpty {
            key = ImageCacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: context[.preserveAspectRatio] ?? true)
        }
        if let suffix = (context[.colorHandling] ?? context[.decodeOptions]?.colorHandling)?.cacheKeySuffix {
            key = ImageCacheKey.transformed(key, transformerKey: suffix)
        }
        if let suffix = (context[.metadataHandling] ?? context[.decodeOptions]?.metadataHandling)?.cacheKeySuffix {
            key = ImageCacheKey.transformed(key, transformerKey: suffix)
        }
        if let transformer {
            key = ImageCacheKey.transformed(key, transformerKey: transformer.key)
        }
        final = key
    }
}

/// Downloads are shared when they fetch the same URL with the same loader and the same
/// network-affecting flags. Requests carrying modifiers or a decryptor (closures, which cannot be
/// compared) get a unique key: they never share.
struct DownloadKey: Hashable, Sendable {
    let url: String
    let loader: String
    let flags: UInt32
    let unique: UInt64?
}

/// Decodes are shared when they decode the same download with the same options.
struct DecodeKey: Hashable, Sendable {
    let download: DownloadKey
    let options: ImageDecodeOptions
}

/// Transforms are shared when they transform the same source with the same transformer key.
struct TransformKey: Hashable, Sendable {
    enum Source: Hashable, Sendable {
        case download(DecodeKey)
        case cache(key: String, options: ImageDecodeOptions)
    }
    let source: Source
    let transformerKey: String
    let transformsAnimatedImages: Bool
}

/// A decoded image and the bytes it came from.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
}

/// A decoded image and, when a transformer ran and succeeded, its output.
struct ProcessedSource: Sendable {
    var decoded: DecodedSource
    var transformed: Image?
}
