import Synchronization

/// What a coder polls between rows, scans and frames so that a cancelled or overlong decode stops
/// spending CPU. Made when a decode starts: the time budget (`ImageDecodeOptions.maxDecodeTime`)
/// counts from then, and cancellation is `DecodeCancellation.current` or, when the decode runs
/// inside a task, that task's cancellation.
///
/// A class so that C callbacks can reach it through an opaque pointer; used by one decode.
public final class DecodeCheckpoint: Sendable {
    private let start: ContinuousClock.Instant
    private let limit: Duration?
    private let cancellation: DecodeCancellation?
    /// Nanoseconds since `start` that were not decoding (`exclude`).
    private let excludedNanoseconds = Atomic<Int64>(0)

    public init(options: ImageDecodeOptions, cancellation: DecodeCancellation? = DecodeCancellation.current) {
        start = .now
        limit = options.maxDecodeTime
        self.cancellation = cancellation
    }

    /// Throws `cancelled` once the decode's request is cancelled and `limitExceeded(.decodeTime)`
    /// once its time budget is spent.
    public func check() throws {
        if cancellation?.isCancelled == true || Task.isCancelled { throw ImagePipeError.cancelled }
        guard let limit else { return }
        let elapsed = ContinuousClock.now - start - .nanoseconds(excludedNanoseconds.load(ordering: .relaxed))
        if elapsed > limit {
            throw ImagePipeError.limitExceeded(.decodeTime, value: Self.milliseconds(elapsed), maximum: Self.milliseconds(limit))
        }
    }

    /// Takes `duration` off the time budget's clock: time a row-by-row decode spent waiting for its
    /// reader (an encoder writing the rows), which is not the decode's own.
    package func exclude(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, duration > .zero else { return }
        excludedNanoseconds.add(nanoseconds.partialValue + attoseconds / 1_000_000_000, ordering: .relaxed)
    }

    /// True when `check` would throw: for C callbacks, which stop the library and let the caller
    /// call `check` for the error.
    package var shouldStop: Bool { (try? check()) == nil }

    private static func milliseconds(_ duration: Duration) -> Int {
        let milliseconds = duration / .milliseconds(1)
        return milliseconds < Double(Int.max) ? Int(milliseconds) : .max
    }
}
