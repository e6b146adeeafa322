import Foundation

/// Runs blocking work (waiting for a child process, sleeping between signals) on a thread of its
/// own and awaits it. Swift's cooperative pool has one thread per core (two here): a test that
/// blocks one of them stalls every other test in the process.
public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.start()
    }
}

/// How long `condition` took to hold, polled every 5 ms on a thread of its own; nil after
/// `timeout`. For tests that time what a client sees: a poll on the dedicated executor would also
/// time that executor's queue, which the decoding suites fill.
public func timeUntil(timeout: Duration = .seconds(60), _ condition: @escaping @Sendable () -> Bool) async throws -> Duration? {
    try await runBlocking {
        let start = ContinuousClock.now
        while true {
            if condition() { return ContinuousClock.now - start }
            if ContinuousClock.now - start >= timeout { return nil }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}
