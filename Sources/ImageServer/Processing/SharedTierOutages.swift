import Synchronization

/// Numbers the fleet tier's outages as this server sees them: each time a generation lookup
/// fails after one succeeded, a new outage begins. Results made during one are keyed with its
/// number, so none of them is answered in a later outage, after a purge this server missed.
final class SharedTierOutages: Sendable {
    private struct State {
        var outage = 0
        var reachable = true
    }

    private let state = Mutex(State())

    func reached() {
        state.withLock { $0.reachable = true }
    }

    /// The current outage's number.
    func missed() -> Int {
        state.withLock { state in
            if state.reachable {
                state.outage += 1
                state.reachable = false
            }
            return state.outage
        }
    }
}
