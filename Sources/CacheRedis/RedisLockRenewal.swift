import Dispatch
import Foundation
import Synchronization

/// Sends a lock's renewal every `interval` from a thread of its own until stopped or until the
/// lock is no longer ours (the script answers 0). Neither the timer nor the command waits for
/// Swift's cooperative pool, so a busy pool cannot let the lock expire under its holder; a fault is
/// retried at the next turn.
final class RedisLockRenewal: Sendable {
    private let stopped = DispatchSemaphore(value: 0)
    private let lost = Atomic<Bool>(false)

    init(pool: RedisCommandPool, every interval: Duration, command: RedisCommand) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        // The thread keeps this object until it ends, at `stop()` or when the lock is lost.
        let thread = Thread { [self] in
            while !lost.load(ordering: .acquiring), stopped.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                pool.submit(command) { [self] reply in
                    if case .integer(0)? = reply { lost.store(true, ordering: .releasing) }
                }
            }
        }
        thread.name = "imagepipe.redis.lock-renewal"
        thread.start()
    }

    /// Ends the renewals; one already sent may still arrive (harmless: it checks the token).
    func stop() { stopped.signal() }
}
