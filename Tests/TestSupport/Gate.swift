import Foundation
import Synchronization

/// A one-shot gate a test opens to let held work go on, so the test decides the order of events
/// instead of racing delays. Async work awaits `wait()`; a server handler on a thread of its own
/// calls `pass(_:)`, which also records arrivals and how many handlers are held at once.
public final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    /// Handlers inside `pass` now, and the most there ever were.
    public let inFlight = Atomic<Int>(0)
    public let maxInFlight = Atomic<Int>(0)
    private let order = Mutex<[String]>([])

    public init() {}

    public func open() { opened.store(true, ordering: .releasing) }
    public var isOpen: Bool { opened.load(ordering: .acquiring) }

    /// Returns once the gate is open; throws `CancellationError` when the awaiting task is cancelled.
    public func wait() async throws {
        while !isOpen {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// For a blocking caller (a server handler's thread): records `name`, waits for the gate (at
    /// most 30 s, so a failed test cannot hold its server for ever), then holds `hold` seconds more.
    public func pass(_ name: String, hold: Double = 0) {
        order.withLock { $0.append(name) }
        let now = inFlight.add(1, ordering: .acquiringAndReleasing).newValue
        _ = maxInFlight.max(now, ordering: .acquiringAndReleasing)
        var waited = 0
        while !isOpen && waited < 3000 {
            usleep(10_000)
            waited += 1
        }
        if hold > 0 { usleep(UInt32(hold * 1_000_000)) }
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// The names `pass` saw, in arrival order.
    public var arrivals: [String] { order.withLock { $0 } }
}
