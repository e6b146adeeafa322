import Synchronization

/// Bytes that decodes in flight may hold together, process-wide. Each decode reserves its
/// estimate (`ImageDecodeEstimate`, from the header) before it allocates and gives it back when it
/// ends, so N simultaneous requests that are each allowed cannot together exhaust the server.
///
/// A reservation that does not fit waits its turn: strictly first come, first served, so a large
/// decode is never starved by a stream of small ones (they queue behind it). Waiting is cancellable
/// and a cancelled waiter holds nothing. A reservation larger than the whole budget fails at once
/// with `limitExceeded(.decodeMemoryBudget)`: no amount of waiting would let it in.
public final class DecodeMemoryBudget: Sendable {
    /// The budget `ImageCodersManager`s share unless given their own.
    public static let shared = DecodeMemoryBudget()

    /// The share of this process's memory (the lower of RAM and the cgroup limit, as the memory
    /// cache reads it) that decodes may hold at once. With the memory cache's 0.2 it leaves 30 %
    /// for transforms, encodes and the rest of the process.
    static let memoryFraction = 0.5
    /// Used when neither /proc/meminfo nor a cgroup limit can be read: room for one decode at the
    /// largest default limits (100 megapixels RGBA plus a decoder's working memory).
    static let fallbackLimitBytes = 1 << 30

    /// Half the lower of RAM and the cgroup memory limit (1 GiB when neither can be read).
    @usableFromInline package static let defaultLimitBytes: Int = {
        guard let bytes = SystemMemory.availableBytes() else { return fallbackLimitBytes }
        let share = Double(bytes) * memoryFraction
        return share >= Double(Int.max) ? Int.max : max(Int(share), 1)
    }()

    private struct Waiter {
        let id: UInt64
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var limit: Int
        /// The limit a reservation over the whole budget names.
        let limitName: ImagePipeError.Limit
        var reserved = 0
        var peak = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0

        func fits(_ bytes: Int) -> Bool { bytes <= limit - reserved }

        mutating func take(_ bytes: Int) {
            reserved += bytes
            peak = max(peak, reserved)
        }

        /// Admits waiters from the front while the first one fits; fails those that can never fit.
        mutating func admitWaiters() -> [(CheckedContinuation<Void, any Error>, Result<Void, any Error>)] {
            var answers: [(CheckedContinuation<Void, any Error>, Result<Void, any Error>)] = []
            let limit = self.limit
            waiters.removeAll { waiter in
                guard waiter.bytes > limit else { return false }
                answers.append((waiter.continuation, .failure(ImagePipeError.limitExceeded(limitName, value: waiter.bytes, maximum: limit))))
                return true
            }
            while let first = waiters.first, fits(first.bytes) {
                take(first.bytes)
                answers.append((waiters.removeFirst().continuation, .success(())))
            }
            return answers
        }
    }

    private let state: Mutex<State>

    public init(limitBytes: Int = DecodeMemoryBudget.defaultLimitBytes) {
        state = Mutex(State(limit: max(limitBytes, 0), limitName: .decodeMemoryBudget))
    }

    /// A budget whose refusals name `limit`: the server's working memory is one.
    package init(limitBytes: Int, limit: ImagePipeError.Limit) {
        state = Mutex(State(limit: max(limitBytes, 0), limitName: limit))
    }

    /// The budget in bytes. Raising it admits waiting decodes that now fit; lowering it fails those
    /// that no longer could, and holds back new ones until enough is given back.
    public var limitBytes: Int {
        get { state.withLock { $0.limit } }
        set {
            let answers = state.withLock { state in
                state.limit = max(newValue, 0)
                return state.admitWaiters()
            }
            for (continuation, result) in answers { continuation.resume(with: result) }
        }
    }

    /// Bytes reserved by decodes running now.
    package var reservedBytes: Int { state.withLock { $0.reserved } }

    /// The most bytes ever reserved at once: a test's proof that the budget held.
    package var peakReservedBytes: Int { state.withLock { $0.peak } }

    /// Reservations waiting for room.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` holding `bytes` of the budget, waiting for them first if need be. Zero or
    /// negative bytes (nothing estimated) run at once, holding nothing.
    ///
    /// - Throws: `limitExceeded(.decodeMemoryBudget)` at once when `bytes` is over the whole budget;
    ///   `ImagePipeError.cancelled` when the task is cancelled while waiting; whatever `body` throws.
    package func withReservation<T>(
        of bytes: Int, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        guard bytes > 0 else { return try await body() }
        try await reserve(bytes)
        defer { release(bytes) }
        return try await body()
    }

    private func reserve(_ bytes: Int) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let answer = state.withLock { state -> Result<Void, any Error>? in
                    if bytes > state.limit { return .failure(ImagePipeError.limitExceeded(state.limitName, value: bytes, maximum: state.limit)) }
                    // Checked under the lock: a cancellation handler that ran before this point
                    // found no waiter to remove, so the waiter must not be queued now.
                    if Task.isCancelled { return .failure(ImagePipeError.cancelled) }
                    // Nobody jumps the queue: a reservation that fits still waits behind others.
                    if state.waiters.isEmpty && state.fits(bytes) {
                        state.take(bytes)
                        return .success(())
                    }
                    state.waiters.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let (cancelled, answers) = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                let cancelled = index.map { state.waiters.remove(at: $0).continuation }
                // A cancelled head may have been what held the others back.
                return (cancelled, state.admitWaiters())
            }
            cancelled?.resume(throwing: ImagePipeError.cancelled)
            for (continuation, result) in answers { continuation.resume(with: result) }
        }
    }

    private func release(_ bytes: Int) {
        let answers = state.withLock { state in
            state.reserved -= bytes
            return state.admitWaiters()
        }
        for (continuation, result) in answers { continuation.resume(with: result) }
    }
}

extension ImagePipeError.Limit {
    /// Bytes all decodes in flight may hold together: `DecodeMemoryBudget.limitBytes`.
    public static let decodeMemoryBudget = ImagePipeError.Limit(name: "decodeMemoryBudget", setting: "DecodeMemoryBudget.limitBytes")
}
