import Synchronization

/// At most `workers` image requests processing at once, at most `queueSize` more waiting in FIFO
/// order; a request arriving to a full queue is refused at once (429), and a waiting request whose
/// client leaves gives up its place.
final class WorkLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        /// Places taken in the queue, counted from the decision to wait (before `waiting` holds it).
        var queued = 0
        var nextID: UInt64 = 0
    }

    let workers: Int
    let queueSize: Int
    private let state = Mutex(State())

    init(workers: Int, queueSize: Int) {
        self.workers = max(workers, 1)
        self.queueSize = max(queueSize, 0)
    }

    var running: Int { state.withLock { $0.running } }
    var queued: Int { state.withLock { $0.queued } }

    enum Refusal: Error {
        case queueFull
        case cancelled
    }

    /// Runs `work` once a worker is free. Throws `queueFull` when the queue is full, `cancelled`
    /// when the task is cancelled while waiting.
    func run<T>(_ work: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await work()
    }

    private func acquire() async throws(Refusal) {
        enum Decision { case admitted, queued(UInt64), full }
        let decision = state.withLock { state -> Decision in
            if state.running < workers {
                state.running += 1
                return .admitted
            }
            guard state.queued < queueSize else { return .full }
            state.queued += 1
            state.nextID += 1
            return .queued(state.nextID)
        }
        switch decision {
        case .admitted: return
        case .full: throw .queueFull
        case .queued(let id):
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool? in
                        if Task.isCancelled {
                            state.queued -= 1
                            return false
                        }
                        if state.running < workers {
                            state.running += 1
                            state.queued -= 1
                            return true
                        }
                        state.waiting.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let resumeNow { continuation.resume(returning: resumeNow) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    state.queued -= 1
                    return state.waiting.remove(at: index)
                }
                waiter?.continuation.resume(returning: false)
            }
            if !admitted { throw .cancelled }
        }
    }

    /// Hands the worker to the next waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            state.queued -= 1
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }
}
