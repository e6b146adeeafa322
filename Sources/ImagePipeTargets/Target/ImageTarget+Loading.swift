import Foundation
import ImagePipe
import PipelineCore

extension ImageTarget where Self: Sendable {
    /// Loads `url` into `slot`, doing what SDWebImage's `sd_internalSetImageWithURL` does: cancel
    /// the previous load for the same operation key (unless `.avoidAutoCancelImage`), show a
    /// memory-cache hit or else the placeholder (unless `.delayPlaceholder`), load through the
    /// manager, then set the image — or, on failure with `.delayPlaceholder`, the placeholder — and
    /// call `completed`.
    ///
    /// - The operation key is the context's `.operationKey`, else the slot's default for this type.
    /// - The manager is the context's `.imageManager`, else `ImageManager.shared`.
    /// - `display`, indicator, transition and `completed` run on the context's `.callbackExecutor`;
    ///   else, when called from an actor (`isolation`, filled in by the compiler), on that actor in
    ///   order — the placeholder, or an image the memory cache holds, before this returns; else on a
    ///   serial executor of this target's own. `progress` runs where the loader reports it.
    /// - `completed` runs once per call: with the result, or `cancelled` when a later call for the
    ///   same key took over, or `invalidURL` for a nil URL (with `.refreshCached`, a second time when
    ///   the server's copy had changed, as the manager does). With `.avoidAutoSetImage` and
    ///   `.progressiveLoad`, partial images come through it too (`isFinished == false`), as in
    ///   SDWebImage. It runs even if the target is gone, so a caller waiting on it is never stranded.
    /// - `completed` comes before `progress`, so a trailing closure is the completion:
    ///   `target.setImage(with: url) { result in … } progress: { p in … }`.
    /// - Returns: the running load; nil for a nil URL and for a memory-cache hit shown at once.
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, slot: ImageSlot = .image,
        options: ImageOptions = [], context: ImageContext = ImageContext(),
        completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)? = nil,
        progress: (@Sendable (ImageLoadProgress) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) -> ImageTask? {
        ImageTargetLoad(
            target: self, url: url, placeholder: placeholder, slot: slot, options: options,
            context: context, progress: progress, completed: completed,
            isolation: isolation, honoursCallbackExecutor: true
        ).start()
    }
}

extension ImageTarget {
    /// `setImage` for a target that lives on an actor, conforming with an isolated conformance
    /// (`@MainActor final class Cell: @MainActor ImageTarget`): called from that actor, as the
    /// compiler requires, it behaves as the `Sendable` target's `setImage`, and everything that
    /// touches the target — `display`, indicator, transition — and `completed` run on that actor,
    /// whatever `.callbackExecutor` the context names. The placeholder, or an image the memory cache
    /// holds, is shown before this returns.
    @_disfavoredOverload
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, slot: ImageSlot = .image,
        options: ImageOptions = [], context: ImageContext = ImageContext(),
        completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)? = nil,
        progress: (@Sendable (ImageLoadProgress) -> Void)? = nil,
        isolation: isolated any Actor = #isolation
    ) -> ImageTask? {
        ImageTargetLoad(
            target: self, url: url, placeholder: placeholder, slot: slot, options: options,
            context: context, progress: progress, completed: completed,
            isolation: isolation, honoursCallbackExecutor: false
        ).start()
    }
}

/// A load's hold on its target: weak, as a load must not keep its target alive, and read only on
/// the load's executor. A target that is not `Sendable` lives on an actor and its loads' executor
/// is that actor, so the reference crosses executors while the target never does.
final class TargetReference: @unchecked Sendable {
    private weak var object: (any ImageTarget)?

    init(_ target: any ImageTarget) { object = target }

    /// The target, if alive. Only on the load's executor.
    var target: (any ImageTarget)? { object }
}

/// One `setImage` call, step by step in SDWebImage's order.
struct ImageTargetLoad: Sendable {
    let weakTarget: TargetReference
    let url: URL?
    let placeholder: Image?
    let slot: ImageSlot
    let options: ImageOptions
    let context: ImageContext
    let key: String
    let manager: ImageManager
    let state: ImageTargetState
    let executor: any CallbackExecutor
    /// The caller runs on `executor` now (it called from the actor that executor is): the first
    /// steps run at once instead of being queued.
    let callerIsOnExecutor: Bool
    let indicator: (any ImageIndicator)?
    let progress: (@Sendable (ImageLoadProgress) -> Void)?
    let completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)?
    var generation: UInt64 = 0

    init(
        target: any ImageTarget, url: URL?, placeholder: Image?, slot: ImageSlot, options: ImageOptions,
        context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?,
        completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)?,
        isolation: (any Actor)?, honoursCallbackExecutor: Bool
    ) {
        let key = context[.operationKey] ?? slot.defaultOperationKey(for: type(of: target))
        let state = ImageTargetRegistry.shared.state(for: target)
        var context = context
        // As SDWebImage: the key goes with the request so loaders and caches can see it, and the
        // manager does not (it would be carried by its own requests).
        context[.operationKey] = key
        manager = context[.imageManager] ?? .shared
        context[.imageManager] = nil
        let custom = honoursCallbackExecutor ? context[.callbackExecutor] : nil
        self.weakTarget = TargetReference(target)
        self.url = url
        self.placeholder = placeholder
        self.slot = slot
        self.options = options
        self.context = context
        self.key = key
        self.state = state
        self.executor = custom ?? state.executor(for: isolation)
        self.callerIsOnExecutor = custom == nil && isolation != nil
        self.indicator = target.imageIndicator
        self.progress = progress
        self.completed = completed
    }

    func start() -> ImageTask? {
        var load = self
        let (generation, previous) = state.begin(key: key, url: url, cancelsPrevious: !options.contains(.avoidAutoCancelImage))
        load.generation = generation
        previous?.cancel()
        guard let url else {
            load.showPlaceholderAtOnce()
            load.failWithoutURL()
            return nil
        }
        if load.callerIsOnExecutor, let hit = load.memoryHit(for: url) {
            load.showMemoryHit(hit)
            return nil
        }
        load.showPlaceholderAtOnce()
        load.startIndicator()
        let task = manager.imageTask(with: url, options: options, context: context) { [load] event in
            load.handle(event)
        }
        if !state.attach(task, key: key, generation: generation) { task.cancel() }
        return task
    }

    // MARK: Steps

    /// Runs `work` now when the caller is on the executor, else queues it there.
    private func onExecutor(_ work: @escaping @Sendable () -> Void) {
        if callerIsOnExecutor { work() } else { executor.execute(work) }
    }

    /// The image the manager's memory step would answer with, read synchronously (SDWebImage's
    /// `sd_internalSetImageWithURL` consults the memory cache before the placeholder).
    private func memoryHit(for url: URL) -> ImageResult? {
        manager.memoryHit(for: url, options: options, context: context)
    }

    /// A memory hit is shown in place of the placeholder and completes before `setImage` returns.
    private func showMemoryHit(_ hit: ImageResult) {
        state.finish(key: key, generation: generation)
        state.progress(forKey: key).markFinished()
        apply(.success(hit))
    }

    /// The placeholder — or, with `.previousCachedImage`, the image the memory cache holds for
    /// this URL — unless `.delayPlaceholder`.
    private func showPlaceholderAtOnce() {
        guard !options.contains(.delayPlaceholder) else { return }
        let shown = ImageResult(image: previousCachedImage ?? placeholder, data: nil, cacheType: .none, url: url)
        onExecutor { [weakTarget, slot] in weakTarget.target?.display(shown, in: slot) }
    }

    /// With `.previousCachedImage`, what the memory cache holds for this URL: its final key, else its
    /// original (full-size, untransformed) key (SDWebImage's `sd_setImageWithPreviousCachedImageWithURL`).
    private var previousCachedImage: Image? {
        guard options.contains(.previousCachedImage), let url else { return nil }
        return manager.memoryImage(anyKeyOf: url, options: options, context: context)
    }

    /// SDWebImage completes a nil URL with `invalidURL`; the placeholder is what stays shown, delayed
    /// or not, and the indicator of a load it superseded stops.
    private func failWithoutURL() {
        state.finish(key: key, generation: generation)
        onExecutor { [self] in
            indicator?.stopAnimating()
            if options.contains(.delayPlaceholder) {
                weakTarget.target?.display(ImageResult(image: placeholder, data: nil, cacheType: .none, url: nil), in: slot)
            }
            completed?(.failure(.invalidURL("")))
        }
    }

    private func startIndicator() {
        guard let indicator else { return }
        onExecutor { indicator.startAnimating() }
    }

    private func handle(_ event: ImageTaskEvent) {
        switch event {
        case .progress(let value): report(value)
        case .partialImage(let image): showPartial(image)
        case .completed(let result): finish(.success(result))
        case .failed(let error): finish(.failure(error))
        }
    }

    private func report(_ value: ImageLoadProgress) {
        guard !isSuperseded else { return }
        let shared = state.progress(forKey: key)
        shared.update(value)
        if let indicator, shared.isDeterminate {
            let fraction = shared.fractionCompleted
            executor.execute { indicator.updateProgress(fraction) }
        }
        progress?(value)
    }

    /// Partial images are set like final ones but without completion — or, with `.avoidAutoSetImage`,
    /// given to the completion instead (SDWebImage: `shouldCallCompletedBlock = finished || avoidAutoSetImage`).
    private func showPartial(_ image: Image) {
        executor.execute { [self] in
            guard !isSuperseded else { return }
            if options.contains(.avoidAutoSetImage) {
                completed?(.success(ImageResult(image: image, data: nil, cacheType: .none, url: url, isFinished: false)))
            } else {
                weakTarget.target?.display(ImageResult(image: image, data: nil, cacheType: .none, url: url, isFinished: false), in: slot)
            }
        }
    }

    private func finish(_ result: Result<ImageResult, ImagePipeError>) {
        state.finish(key: key, generation: generation)
        if case .success(let value) = result, value.isFinished, !isSuperseded {
            state.progress(forKey: key).markFinished()
        }
        executor.execute { [self] in
            // Checked on the executor, in order with the later call's own updates: a result that lost
            // the race never lands, even if it finished first.
            guard !isSuperseded else {
                completed?(.failure(.cancelled))
                return
            }
            indicator?.stopAnimating()
            apply(result)
        }
    }

    /// SDWebImage's cases: 1a image + avoid-auto-set and 1b no image without delayed placeholder set
    /// nothing; 2a no image with delayed placeholder sets the placeholder, 2b sets the image.
    private func apply(_ result: Result<ImageResult, ImagePipeError>) {
        let loaded = try? result.get()
        let image = loaded?.image
        let avoidAutoSet = options.contains(.avoidAutoSetImage)
        let delayPlaceholder = options.contains(.delayPlaceholder)
        guard let target = weakTarget.target,
            !((image != nil && avoidAutoSet) || (image == nil && !delayPlaceholder))
        else {
            completed?(result)
            return
        }
        let shown = if let loaded, loaded.image != nil { loaded } else { ImageResult(image: placeholder, data: nil, cacheType: .none, url: url) }
        guard let transition = target.imageTransition, usesTransition(cacheType: shown.cacheType) else {
            target.display(shown, in: slot)
            completed?(result)
            return
        }
        let waits = options.contains(.waitTransition)
        transition.prepare(target, image: shown.image, slot: slot, cacheType: shown.cacheType, url: url)
        transition.apply(shown, to: target, slot: slot) { [self, weakTarget] finished in
            executor.execute {
                if let target = weakTarget.target { transition.completed(target, slot: slot, finished: finished) }
                if waits { completed?(result) }
            }
        }
        if !waits { completed?(result) }
    }

    /// Images that were already at hand appear at once; ones that took time may transition in.
    private func usesTransition(cacheType: ImageCacheType) -> Bool {
        if options.contains(.forceTransition) { return true }
        switch cacheType {
        case .none: return true
        case .disk: return !options.contains(.queryMemoryDataSync) && !options.contains(.queryDiskDataSync)
        default: return false
        }
    }

    private var isSuperseded: Bool { state.isSuperseded(key: key, generation: generation) }
}
