import Synchronization

/// A flag that tells a synchronous decode, transform or encode running on another thread to stop.
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

extension DecodeCancellation {
    /// Whether the work running on this thread was cancelled: its flag is set, or the task it
    /// runs in is cancelled. Loops over rows that cannot throw (the resampler) stop early on it and
    /// leave the throw to `checkCurrent()`.
    package static var isCurrentCancelled: Bool { current?.isCancelled == true || Task.isCancelled }

    /// Throws `cancelled` when the work running on this thread was cancelled: transformers and
    /// encoders call it between frames and stages, so work stops when its answer is no longer wanted.
    package static func checkCurrent() throws {
        if isCurrentCancelled { throw ImagePipeError.cancelled }
    }
}

extension DecodeCancellation {
    /// For a C loop that asks "stop?" through a function and a context: this function, given
    /// `unretained` of a flag the caller keeps alive, answers 1 once the flag is set.
    package static let cStopQuery: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        guard let context else { return 0 }
        return Unmanaged<DecodeCancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
    }

    /// The flag as the C context of `cStopQuery`; the caller keeps the flag alive meanwhile.
    package var unretained: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
