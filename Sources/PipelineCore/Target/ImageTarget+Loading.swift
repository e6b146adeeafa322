import Foundation

extension ImageTarget {
    /// Loads `url` into `slot`, doing what SDWebImage's `sd_internalSetImageWithURL` does: cancel
    /// the previous load for the same operation key (unless `.avoidAutoCancelImage`), show the
    /// placeholder at once (unless `.delayPlaceholder`), load through the manager, then set the
    /// image — or, on failure with `.delayPlaceholder`, the placeholder — and call `completed`.
    ///
    /// - The operation key is the context's `.operationKey`, else the slot's default for this type.
    /// - The manager is the context's `.imageManager`, else `ImageManager.shared`.
    /// - `display`, indicator, transition and `completed` run on the context's `.callbackExecutor`;
    ///   else, when called from an actor (`isolation`, filled in by the compiler), on that actor in
    ///   order; else on a serial executor of this target's own. `progress` runs where the loader
    ///   reports it.
    /// - `completed` runs once per call: with the result, or `cancelled` when a later call for the
    ///   same key took over, or `invalidURL` for a nil URL (with `.refreshCached`, a second time when
    ///   the server's copy had changed, as the manager does). With `.avoidAutoSetImage` and
    ///   `.progressiveLoad`, partial images come through it too (`isFinished == false`), as in
    ///   SDWebImage. It runs even if the target is gone, so a caller waiting on it is never stranded.
    /// - `completed` comes before `progress`, so a trailing closure is the completion:
    ///   `target.setImage(with: url) { result in … } progress: { p in … }`.
    /// - Returns: the running load, nil for a nil URL.
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, slot: ImageSlot = .image,
        options: ImageOptions = [], context: ImageContext = ImageContext(),
        completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)? = nil,
        progress: (@Sendable (ImageLoadProgress) -> Void)? = nil,
        isolation: (any Actor)? = #isolation
    ) -> ImageTask? {
        ImageTargetLoad(target: self, url: url, placeholder: placeholder, slot: slot, options: options,
                        context: context, progress: progress, completed: completed, isolation: isolation).start()
    }
}

/// A weak reference that can cross executors: a load must not keep its target alive.
struct WeakImageTarget: Sendable {
    weak var target: (any ImageTarget)?
}

/// One `setImage` call, step by step in SDWebImage's order.
struct ImageTargetLoad: Sendable {
    let weakTarget: WeakImageTarget
    let url: URL?
    let placeholder: Image?
    let slot: ImageSlot
    let options: ImageOptions
    let context: ImageContext
    let key: String
    let manager: ImageManager
    let state: ImageTargetState
    let executor: any CallbackExecutor
    let indicator: (any ImageIndicator)?
    let progress: (@Sendable (ImageLoadProgress) -> Void)?
    let completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)?
    var generation: UInt64 = 0

    init(target: any ImageTarget, url: URL?, placeholder: Image?, slot: ImageSlot, options: ImageOptions,
         context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?,
         completed: (@Sendable (Result<ImageResult, ImagePipeError>) -> Void)?, isolation: (any Actor)?) {
        let key = context[.operationKey] ?? slot.defaultOperationKey(for: type(of: target))
        let state = ImageTargetRegistry.shared.state(for: target)
        var context = context
        // As SDWebImage: the key goes with the request so loaders and caches can see it, and the
        // manager does not (it would be carried by its own requests).
        context[.operationKey] = key
        manager = context[.imageManager] ?? .shared
        context[.imageManager] = nil
        self.weakTarget = WeakImageTarget(target: target)
        self.url = url
        self.placeholder = placeholder
        self.slot = slot
        self.options = options
        self.context = context
        self.key = key
        self.state = state
        self.executor = context[.callbackExecutor] ?? state.executor(for: isolation)
        self.indicator = target.imageIndicator
        self.progress = progress
        self.completed = completed
    }

    func start() -> ImageTask? {
        var load = self
        let (generation, previous) = state.begin(key: key, url: url, cancelsPrevious: !options.contains(.avoidAutoCancelImage))
        load.generation = generation
        previous?.cancel()
        load.showPlaceholderAtOnce()
        guard let url else {
            load.failWithoutURL()
            return nil
        }
        load.startIndicator()
        let task = manager.imageTask(with: url, options: options, context: context) { [load] event in
            load.handle(event)
        }
        if !state.attach(task, key: key, generation: generation) { task.cancel() }
        return task
    }

    // MARK: Steps

    private func showPlaceholderAtOnce() {
        guard !options.contains(.delayPlaceholder) else { return }
        executor.execute { [weakTarget, placeholder, slot] in weakTarget.target?.display(placeholder, in: slot) }
    }

    /// SDWebImage completes a nil URL with `invalidURL`; the placeholder is what stays shown, delayed or not.
    private func failWithoutURL() {
        state.finish(key: key, generation: generation)
        executor.execute { [self] in
            if options.contains(.delayPlaceholder) { weakTarget.target?.display(placeholder, in: slot) }
            completed?(.failure(.invalidURL("")))
        }
    }

    private func startIndicator() {
        guard let indicator else { return }
        executor.execute { indicator.startAnimating() }
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
                weakTarget.target?.display(image, in: slot)
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
        let image = try? result.get().image
        let avoidAutoSet = options.contains(.avoidAutoSetImage)
        let delayPlaceholder = options.contains(.delayPlaceholder)
        guard let target = weakTarget.target,
              !((image != nil && avoidAutoSet) || (image == nil && !delayPlaceholder))
        else {
            completed?(result)
            return
        }
        let shown = image ?? placeholder
        let cacheType = (try? result.get().cacheType) ?? .none
        guard let transition = target.imageTransition, usesTransition(cacheType: cacheType) else {
            target.display(shown, in: slot)
            completed?(result)
            return
        }
        let waits = options.contains(.waitTransition)
        transition.prepare(target, image: shown, slot: slot, cacheType: cacheType, url: url)
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
