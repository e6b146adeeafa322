import Synchronization

/// Awaits a shared task's value but gives up with nil as soon as the calling task is cancelled,
/// without cancelling the shared task (other callers may still want it). The caller is answered
/// exactly once, whichever comes first.
func valueUnlessCancelled<T: Sendable>(of task: Task<T?, Never>) async -> T? {
    let answer = AnswerOnce<T?>()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            answer.wait(with: continuation)
            Task { answer.resume(await task.value) }
        }
    } onCancel: {
        answer.cancel(with: nil)
    }
}

/// A continuation that may be resumed from two sides (result or cancellation), of which only the
/// first counts. Cancellation can arrive before the continuation exists; it is remembered.
final class AnswerOnce<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Never>?
        var earlyAnswer: T?
        var answered = false
    }

    private let state = Mutex(State())

    func wait(with continuation: CheckedContinuation<T, Never>) {
        let early: T? = state.withLock { state in
            if state.answered, let early = state.earlyAnswer { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: T) { finish(value) }

    func cancel(with value: T) { finish(value) }

    private func finish(_ value: T) {
        let continuation: CheckedContinuation<T, Never>? = state.withLock { state in
            guard !state.answered else { return nil }
            state.answered = true
            guard let continuation = state.continuation else {
                state.earlyAnswer = value
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
