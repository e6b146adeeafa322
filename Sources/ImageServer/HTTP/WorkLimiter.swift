import Synchronization

/// Bounds the server's image work in two stages, so that a core never waits on an origin:
///
/// - **places** (`workers` of them): a request holding one fetches its source, then waits for a
///   worker; it gives the place to the next request as it gets the worker. At most `queueSize`
///   more wait for a place, in FIFO order; a request arriving to a full queue is refused at once
///   (429), and a waiting request whose client leaves gives up its place in the queue.
/// - **workers** (`workers` of them): the CPU work (decode, transform, encode), one request each.
///
/// So while the workers decode, the next requests' sources are already on their way, and at most
/// two sources per worker are held at once (one processing, one fetched or fetching).
final class WorkLimiter: Sendable {
    let workers: Int
    let queueSize: Int
    private let places: FIFOSlots
    private let processors: FIFOSlots

    init(workers: Int, queueSize: Int) {
        self.workers = max(workers, 1)
        self.queueSize = max(queueSize, 0)
        places = FIFOSlots(limit: self.workers, waitLimit: self.queueSize)
        processors = FIFOSlots(limit: self.workers, waitLimit: .max)
    }

    /// Requests waiting for a place.
    var queued: Int { places.waiting }
    /// Requests holding a place: fetching, or waiting for a worker.
    var admitted: Int { places.held }
    /// Requests holding a worker.
    var processing: Int { processors.held }

    enum Refusal: Error {
        case queueFull
        case cancelled
    }

    /// Runs `work` once a place is free; `work` runs its CPU part through `Admission.process`.
    /// Throws `queueFull` when the queue is full, `cancelled` when the task is cancelled while waiting.
    func run<T>(_ work: (Admission) async throws -> T) async throws -> T {
        try await places.acquire()
        let admission = Admission(limiter: self)
        defer { admission.leavePlace() }
        return try await work(admission)
    }

    /// One admitted request's hold on the limiter.
    final class Admission: Sendable {
        private let limiter: WorkLimiter
        private let holdsPlace = Atomic(true)

        fileprivate init(limiter: WorkLimiter) {
            self.limiter = limiter
        }

        /// Runs `work` holding a worker, giving this request's place to the next as the worker is
        /// had. Throws `cancelled` when the task is cancelled while waiting for the worker.
        func process<T>(_ work: () async throws -> T) async throws -> T {
            try await limiter.processors.acquire()
            leavePlace()
            defer { limiter.processors.release() }
            return try await work()
        }

        fileprivate func leavePlace() {
            if holdsPlace.exchange(false, ordering: .acquiringAndReleasing) { limiter.places.release() }
        }
    }
}

/// `limit` holders at once, at most `waitLimit` more waiting in FIFO order; a waiter whose task is
/// cancelled leaves the line.
private final class FIFOSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var held = 0
        var waiters: [Waiter] = []
        /// Places taken in the line, counted from the decision to wait (before `waiters` holds it).
        var waiting = 0
        var nextID: UInt64 = 0
    }

    let limit: Int
    let waitLimit: Int
    private let state = Mutex(State())

    init(limit: Int, waitLimit: Int) {
        self.limit = limit
        self.waitLimit = waitLimit
    }

    var held: Int { state.withLock { $0.held } }
    var waiting: Int { state.withLock { $0.waiting } }

    func acquire() async throws(WorkLimiter.Refusal) {
        enum Decision {
            case admitted
            case queued(UInt64)
            case full
        }
        let decision = state.withLock { state -> Decision in
            if state.held < limit {
                state.held += 1
                return .admitted
            }
            guard state.waiting < waitLimit else { return .full }
            state.waiting += 1
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
                            state.waiting -= 1
                            return false
                        }
                        if state.held < limit {
                            state.held += 1
                            state.waiting -= 1
                            return true
                        }
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let resumeNow { continuation.resume(returning: resumeNow) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    state.waiting -= 1
                    return state.waiters.remove(at: index)
                }
                waiter?.continuation.resume(returning: false)
            }
            if !admitted { throw .cancelled }
        }
    }

    /// Hands the slot to the next waiter, or frees it.
    func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.held -= 1
                return nil
            }
            state.waiting -= 1
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }
}
