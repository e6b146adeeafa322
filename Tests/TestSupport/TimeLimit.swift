import Foundation
import Synchronization

/// Runs blocking `work` on a thread of its own and waits for it at most `limit`: nil when it did not
/// finish by then (its thread is left behind). For operations that must not hang, such as reading a
/// FIFO: a regression then fails its test instead of hanging the run. The limit is a safety net,
/// not a measurement; a passing test returns as soon as the work does.
public func withTimeLimit<T: Sendable>(
    _ limit: Duration = .seconds(60), _ work: @escaping @Sendable () throws -> T
) async -> Result<T, any Error>? {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let thread = Thread {
        let result = Result { try work() }
        outcome.withLock { $0 = result }
    }
    thread.start()
    _ = await eventually(timeout: limit) { outcome.withLock { $0 != nil } }
    return outcome.withLock { $0 }
}

/// `withTimeLimit` for async work, run in a task of its own.
public func withTimeLimit<T: Sendable>(
    _ limit: Duration = .seconds(60), _ work: @escaping @Sendable () async throws -> T
) async -> Result<T, any Error>? {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
    }
    _ = await eventually(timeout: limit) { outcome.withLock { $0 != nil } }
    return outcome.withLock { $0 }
}

/// A named pipe for tests of code that must refuse one without blocking.
public struct FIFO: Sendable {
    public let path: String

    /// Makes the FIFO at `path`.
    public init(at path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        self.path = path
    }

    /// Opens and closes the write end, so a reader stuck waiting for a writer gets end-of-file:
    /// a test that found a hang frees the thread it left behind.
    public func releaseReaders() {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
    }
}
