import Foundation
import PipelineCore
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
    let blockedURLs = BlockedURLList()

    private let settingsStorage: Mutex<SettingsSnapshot>
    public var settings: Settings {
        get { settingsStorage.withLock { $0.value } }
        set {
            let snapshot = SettingsSnapshot(newValue)
            settingsStorage.withLock { $0 = snapshot }
        }
    }

    /// The settings as they are now, by reference: a load reads the fields it needs from it
    /// instead of copying (and retaining) every field of `Settings`.
    var currentSettings: SettingsSnapshot { settingsStorage.withLock { $0 } }

    let downloads = Coalescer<DownloadIdentity<LoaderRequest>, ImageLoadResult, ImageLoadProgress>()
    let decodes = Coalescer<DecodeIdentity, DecodedSource, ImageLoadProgress>()
    let transforms = Coalescer<TransformIdentity, ProcessedSource, ImageLoadProgress>()
    let cpu: CPUWorkQueue
    /// `cache`, when it answers memory hits synchronously; cast once, as the cast costs more than
    /// the hit itself.
    let memoryLookup: (any SynchronousMemoryLookup)?
    private let running = Mutex<Set<ImageTask>>([])

    /// `cpuConcurrency`: decodes and transforms run at once at most; default one per core.
    public init(
        cache: any ImageCache = ImageCachesManager.shared,
        loader: any ImageLoader = ImageLoadersManager.shared,
        coders: ImageCodersManager = .shared,
        cpuConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        settingsStorage = Mutex(SettingsSnapshot(Settings()))
        self.cache = cache
        self.memoryLookup = cache.synchronousMemoryLookup
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
        startTask(url: url, onEvent: onEvent) { [self] task in
            await ImageLoadFlow.run(manager: self, url: url, options: options, context: context, for: task)
        }
    }

    /// Loads an image; cancelling the calling task cancels the load. Returns the final result (with
    /// `.refreshCached`, the revalidated one); a `.fromCacheOnly` miss returns a result without image,
    /// a URL no loader takes throws `invalidURL`. `image(with:options:context:)` returns the image alone.
    /// The flow's steps up to the memory cache run in the caller: a memory hit returns at once,
    /// without starting a task; the rest runs in one.
    ///
    /// It takes no closure on purpose: `loadImage(with: url) { … }` always means the callback form.
    /// For progress, use `imageTask(with:options:context:onEvent:)` and await its `result()`.
    public func loadImage(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext()
    ) async throws -> ImageResult {
        if Task.isCancelled { throw ImagePipeError.cancelled }
        let flow = try ImageLoadFlow(manager: self, url: url, options: options, context: context)
        if let hit = flow.answerFromMemory() { return hit }
        let task = startTask(url: url, onEvent: nil) { task in await flow.load(for: task) }
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
    var runningCount: Int { running.withLock { $0.count } }

    /// A running task for `work`, counted in `runningCount` until it finishes.
    private func startTask(url: URL?, onEvent: (@Sendable (ImageTaskEvent) -> Void)?, work: @escaping @Sendable (ImageTask) async -> Void) -> ImageTask {
        let task = ImageTask(url: url, onEvent: onEvent)
        running.withLock { _ = $0.insert(task) }
        task.start(Task { await work(task) }) { [weak self] in
            _ = self?.running.withLock { $0.remove(task) }
        }
        return task
    }

    // MARK: Keys

    /// The key a request's final image is cached under: the URL through the key filter, then the
    /// thumbnail suffix, then the transformer's key (SDWebImage's `cacheKeyForURL:context:`).
    public func cacheKey(for url: URL?, context: ImageContext = ImageContext()) -> String {
        ImageCacheKeys(url: url, context: context, settings: currentSettings).final
    }
}
