import Dispatch

/// Runs blocking work (file I/O, decoding) on a dispatch queue so it never parks a thread of
/// Swift's cooperative pool, which has only as many threads as cores. Public for plugins whose
/// caches or loaders block the same way.
public enum BlockingIO {
    /// `work`'s value, or what it threw: a closure that throws nothing needs no `try`.
    public static func run<T: Sendable, E: Error>(
        on queue: DispatchQueue, _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }
}
