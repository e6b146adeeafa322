import Synchronization

/// A thread-safe counter for "how many times did this happen".
public final class Counter: Sendable {
    private let value = Mutex(0)
    public init() {}
    public func increment() { value.withLock { $0 += 1 } }
    public var count: Int { value.withLock { $0 } }
}
