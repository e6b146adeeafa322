import Foundation
import PipelineCore
import Synchronization

/// A running load: cancel it, read its progress, or follow its events.
///
/// It completes exactly once (a `.refreshCached` load may first complete with the cached image):
/// `cancel()` delivers `failed(.cancelled)` at once and drops anything the work produces after.
public final class ImageTask: Sendable, Hashable {
    public let url: URL?
    public let events: AsyncStream<ImageTaskEvent>

    private struct State {
        var finished = false
        var progress: ImageLoadProgress?
        var work: Task<Void, Never>?
        var onEvent: (@Sendable (ImageTaskEvent) -> Void)?
        var onFinish: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    private let continuation: AsyncStream<ImageTaskEvent>.Continuation

    init(url: URL?, onEvent: (@Sendable (ImageTaskEvent) -> Void)?) {
        self.url = url
        (events, continuation) = AsyncStream.makeStream(of: ImageTaskEvent.self, bufferingPolicy: .unbounded)
        state = Mutex(State(onEvent: onEvent))
    }

    /// The latest progress, nil before the first.
    public var progress: ImageLoadProgress? { state.withLock { $0.progress } }

    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Stops the load. The task fails with `cancelled` unless it had already finished.
    public func cancel() {
        let work = state.withLock { $0.work }
        emit(.failed(.cancelled), terminal: true)
        work?.cancel()
    }

    /// The final result: the last `completed`, or the error of `failed`.
    public func result() async throws -> ImageResult {
        var last: Result<ImageResult, ImagePipeError> = .failure(.cancelled)
        for await event in events {
            switch event {
            case .completed(let result): last = .success(result)
            case .failed(let error): last = .failure(error)
            case .progress, .partialImage: break
            }
        }
        return try last.get()
    }

    func start(_ work: Task<Void, Never>, onFinish: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            state.work = work
            state.onFinish = onFinish
            return state.finished
        }
        if cancelNow {
            work.cancel()
            onFinish()
        }
    }

    /// Ends the task without a further event: a `.refreshCached` load whose server copy had not
    /// changed has already completed with the cached image.
    func finishWithoutEvent() {
        emit(nil, terminal: true)
    }

    /// Delivers an event unless the task has finished; `terminal` finishes it.
    func emit(_ event: ImageTaskEvent?, terminal: Bool) {
        let delivery = state.withLock { state -> (handler: (@Sendable (ImageTaskEvent) -> Void)?, finish: (@Sendable () -> Void)?)? in
            guard !state.finished else { return nil }
            if case .progress(let progress)? = event { state.progress = progress }
            if terminal {
                state.finished = true
                let finish = state.onFinish
                state.onFinish = nil
                return (state.onEvent, finish)
            }
            return (state.onEvent, nil)
        }
        guard let delivery else { return }
        if let event {
            continuation.yield(event)
            delivery.handler?(event)
        }
        if terminal {
            continuation.finish()
            delivery.finish?()
        }
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
