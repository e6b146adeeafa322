import Dispatch
import Synchronization

/// Runs CPU-heavy work (decode, resample) on Dispatch's global pool, at most `limit` jobs at once.
///
/// Decoding a large image takes tens of milliseconds; on Swift's cooperative pool that would stall
/// every other task on the thread, so it runs on a Dispatch thread while the task awaits it. The
/// limit keeps a burst of requests from starting more decodes (and holding more pixels) than there
/// are cores to run them. Cancelling the awaiting task sets the work's `DecodeCancellation`, which
/// coders poll, so a cancelled decode stops instead of running to the end on its thread.
package final class CPUWorkQueue: Sendable {
    private struct State {
        package var running = 0
        package var waiting: [CheckedContinuation<Void, Never>] = []
    }

    package let limit: Int
    private let state = Mutex(State())

    package init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Jobs waiting for a worker now.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        if Task.isCancelled { throw ImagePipeError.cancelled }
        return try await Self.runOffPool(work)
    }

    /// Runs `work` on a Dispatch thread while the task awaits it, with a `DecodeCancellation` that
    /// cancelling the task sets. For CPU work whose caller bounds its concurrency itself.
    package static func runOffPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let cancellation = DecodeCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try DecodeCancellation.$current.withValue(cancellation) { try work() } })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    private func acquire() async {
        let admitted = state.withLock { state -> Bool in
            guard state.running < limit else { return false }
            state.running += 1
            return true
        }
        if admitted { return }
        await withCheckedContinuation { continuation in
            let admittedNow = state.withLock { state -> Bool in
                if state.running < limit {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admittedNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            // Hand the slot straight to the first waiter (FIFO), so `running` never dips and refills.
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
