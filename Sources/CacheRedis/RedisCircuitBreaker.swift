import Synchronization

/// Stops commands to a server that keeps failing: after `threshold` faults in a row it opens for
/// `cooldown`, answering "don't try" at once; then it lets one command through as a probe, whose
/// success closes it and whose fault opens it again.
final class RedisCircuitBreaker: Sendable {
    private struct State {
        var faultsInRow = 0
        var openUntil: ContinuousClock.Instant?
        /// While a probe is out, others wait; a probe never answered frees the slot after a cooldown.
        var probeUntil: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// False while the state is the initial one (no fault in a row, closed), so the questions every
    /// command asks are answered without taking the lock, which every connection's thread shares.
    private let tripped = Atomic<Bool>(false)
    private let threshold: Int
    private let cooldown: Duration

    init(threshold: Int, cooldown: Duration) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
    }

    /// Whether a command may go to the server now; after the cooldown, the first to ask probes.
    func allows() -> Bool {
        guard tripped.load(ordering: .acquiring) else { return true }
        return state.withLock { state in
            guard let openUntil = state.openUntil else { return true }
            let now = ContinuousClock.now
            guard now >= openUntil, state.probeUntil.map({ now >= $0 }) ?? true else { return false }
            state.probeUntil = now + cooldown
            return true
        }
    }

    /// Whether the breaker is open and still cooling down (a command already let through runs).
    var isCoolingDown: Bool {
        guard tripped.load(ordering: .acquiring) else { return false }
        return state.withLock { state in state.openUntil.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Records a success; true when it closed an open breaker.
    @discardableResult
    func recordSuccess() -> Bool {
        guard tripped.load(ordering: .acquiring) else { return false }
        return state.withLock { state in
            defer {
                state = State()
                tripped.store(false, ordering: .releasing)
            }
            return state.openUntil != nil
        }
    }

    /// Records a fault; true when it opened (or re-opened) the breaker.
    @discardableResult
    func recordFault() -> Bool {
        state.withLock { state in
            tripped.store(true, ordering: .releasing)
            state.faultsInRow += 1
            guard state.openUntil != nil || state.faultsInRow >= threshold else { return false }
            state.probeUntil = nil
            state.openUntil = ContinuousClock.now + cooldown
            return true
        }
    }

    var isOpen: Bool {
        guard tripped.load(ordering: .acquiring) else { return false }
        return state.withLock { $0.openUntil != nil }
    }
}
