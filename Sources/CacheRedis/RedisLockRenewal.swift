import Dispatch
import Foundation

/// Sends a lock's renewal every `interval` from a thread of its own until stopped, or until this
/// handle is released. Neither the timer nor the command waits for Swift's cooperative pool, so a
/// busy pool cannot let the lock expire under its holder; a renewal that fails (a fault, or a lock
/// that is not ours) changes nothing, and the next turn tries again.
final class RedisLockRenewal: Sendable {
    private let stopped = DispatchSemaphore(value: 0)

    init(pool: RedisCommandPool, every interval: Duration, command: RedisCommand) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        // The thread keeps the semaphore, not this handle, so dropping the handle ends it.
        let thread = Thread { [stopped] in
            while stopped.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                pool.submit(command) { _ in }
            }
        }
        thread.name = "imagepipe.redis.lock-renewal"
        thread.start()
    }

    deinit { stop() }

    /// Ends the renewals (once is enough; again is harmless). One already sent may still arrive:
    /// it checks the token, so it never touches another holder's lock.
    func stop() { stopped.signal() }
}
