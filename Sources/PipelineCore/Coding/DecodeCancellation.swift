import Synchronization

/// A flag that tells a synchronous decode running on another thread to stop.
///
/// Decodes are synchronous calls on a worker thread, out of reach of Swift's task cancellation.
/// The pipeline binds one of these to `current` around each decode it runs and sets it when the
/// task waiting for that work is cancelled; coders poll it through `DecodeCheckpoint`. A decode
/// shared by several requests runs in one task that is cancelled only when every request waiting
/// for it has gone, so the flag is set only then.
///
/// Callers of `ImageCoder.decode` can do the same:
/// `try DecodeCancellation.$current.withValue(flag) { try coder.decode(data, options: options) }`.
public final class DecodeCancellation: Sendable {
    /// The flag of the decode running on this thread or task, if any.
    @TaskLocal public static var current: DecodeCancellation?

    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }

    package var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
