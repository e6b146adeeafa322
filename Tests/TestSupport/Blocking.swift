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
