import Foundation
import PipelineCore
import Synchronization

/// Loads lists of URLs ahead of need, into the caches (SDWebImage's `SDWebImagePrefetcher`): at
/// most `maxConcurrentPrefetchCount` at once (default 3), low priority, counting finished and
/// skipped (failed) URLs, completing each batch once.
public final class ImagePrefetcher: Sendable {
    public static let shared = ImagePrefetcher()

    public let manager: ImageManager
    private let settings: Mutex<(maxConcurrent: Int, options: ImageOptions, context: ImageContext)>
    private let batches = Mutex<[UInt64: ImagePrefetchToken]>([:])
    private let nextID = Mutex<UInt64>(0)

    public init(manager: ImageManager = .shared, maxConcurrentPrefetchCount: Int = 3) {
        self.manager = manager
        settings = Mutex((max(maxConcurrentPrefetchCount, 1), [.lowPriority], ImageContext()))
    }

    /// Loads in flight at once, per batch.
    public var maxConcurrentPrefetchCount: Int {
        get { settings.withLock { $0.maxConcurrent } }
        set { settings.withLock { $0.maxConcurrent = max(newValue, 1) } }
    }

    /// Options added to every prefetch (default `.lowPriority`).
    public var options: ImageOptions {
        get { settings.withLock { $0.options } }
        set { settings.withLock { $0.options = newValue } }
    }

    /// Prefetches `urls`. `progress(finished, total)` runs after each URL; `completed(finished,
    /// skipped)` once, when all are done (at once for an empty list) — unless the batch is cancelled,
    /// which drops both handlers, as upstream.
    @discardableResult
    public func prefetch(
        _ urls: [URL], options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> ImagePrefetchToken? {
        guard !urls.isEmpty else {
            completed?(0, 0)
            return nil
        }
        let id = nextID.withLock {
            $0 += 1
            return $0
        }
        let token = ImagePrefetchToken(total: urls.count)
        batches.withLock { $0[id] = token }
        let work = Task { [weak self] in
            guard let self else { return }
            _ = await self.run(urls, options: options, context: context, token: token, progress: progress)
            self.batches.withLock { _ = $0.removeValue(forKey: id) }
            if !Task.isCancelled, let counts = token.finish() { completed?(counts.finished, counts.skipped) }
        }
        token.attach(work)
        return token
    }

    /// Prefetches and waits. Cancelling the calling task cancels the loads still to come; they count
    /// as skipped.
    public func prefetch(_ urls: [URL], options: ImageOptions = [], context: ImageContext = ImageContext()) async -> (finished: Int, skipped: Int) {
        await run(urls, options: options, context: context, token: ImagePrefetchToken(total: urls.count), progress: nil)
    }

    /// Loads the URLs with at most `maxConcurrentPrefetchCount` in flight.
    private func run(
        _ urls: [URL], options: ImageOptions, context: ImageContext, token: ImagePrefetchToken,
        progress: (@Sendable (Int, Int) -> Void)?
    ) async -> (finished: Int, skipped: Int) {
        let (limit, baseOptions, baseContext) = settings.withLock { ($0.maxConcurrent, $0.options, $0.context) }
        let (manager, requestOptions, requestContext) = (self.manager, options.union(baseOptions), context.fillingGaps(from: baseContext))
        await withTaskGroup(of: Bool.self) { group in
            var pending = urls[...]
            func startNext() {
                guard let url = pending.popFirst() else { return }
                group.addTask {
                    (try? await manager.loadImage(with: url, options: requestOptions, context: requestContext))?.image != nil
                }
            }
            for _ in 0..<limit { startNext() }
            for await succeeded in group {
                let (finished, total) = token.record(succeeded: succeeded)
                if !Task.isCancelled { progress?(finished, total) }
                startNext()
            }
        }
        return (token.finishedCount, token.skippedCount)
    }

    /// Cancels every batch.
    public func cancelPrefetching() {
        for token in batches.withLock({ Array($0.values) }) { token.cancel() }
    }

    /// Batches still running.
    var runningBatchCount: Int { batches.withLock { $0.count } }
}

/// One batch of prefetches.
public final class ImagePrefetchToken: Sendable {
    private struct State {
        var finished = 0
        var skipped = 0
        var completed = false
        var work: Task<Void, Never>?
    }

    public let total: Int
    private let state = Mutex(State())

    init(total: Int) { self.total = total }

    public var finishedCount: Int { state.withLock { $0.finished } }
    public var skippedCount: Int { state.withLock { $0.skipped } }

    /// Cancels the batch's queued and running loads; its handlers are not called.
    public func cancel() {
        let work = state.withLock { state -> Task<Void, Never>? in
            state.completed = true
            return state.work
        }
        work?.cancel()
    }

    func attach(_ work: Task<Void, Never>) { state.withLock { $0.work = work } }

    func record(succeeded: Bool) -> (Int, Int) {
        state.withLock { state in
            state.finished += 1
            if !succeeded { state.skipped += 1 }
            return (state.finished, total)
        }
    }

    /// The counts, the first time only.
    func finish() -> (finished: Int, skipped: Int)? {
        state.withLock { state in
            guard !state.completed else { return nil }
            state.completed = true
            return (state.finished, state.skipped)
        }
    }
}
