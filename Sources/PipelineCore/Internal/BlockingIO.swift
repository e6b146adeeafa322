import Dispatch

/// Runs blocking work (file I/O, decoding) on a dispatch queue so it never parks a thread of
/// Swift's cooperative pool, which has only as many threads as cores. Public for plugins whose
/// caches or loaders block the same way.
public enum BlockingIO {
    public static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    public static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
