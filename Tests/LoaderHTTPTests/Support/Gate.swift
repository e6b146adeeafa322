import Foundation
import Synchronization

/// Holds server handlers until the test opens it, and counts how many are waiting or running.
final class Gate: Sendable {
    private let open = Atomic<Bool>(false)
    let inFlight = Atomic<Int>(0)
    let maxInFlight = Atomic<Int>(0)
    private let order = Mutex<[String]>([])

    func release() { open.store(true, ordering: .releasing) }

    /// Called by a handler: records `name`, waits for the gate (at most 10 s), tracks concurrency.
    func pass(_ name: String, hold: Double = 0) {
        order.withLock { $0.append(name) }
        let now = inFlight.add(1, ordering: .acquiringAndReleasing).newValue
        _ = maxInFlight.max(now, ordering: .acquiringAndReleasing)
        var waited = 0
        while !open.load(ordering: .acquiring) && waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        if hold > 0 { usleep(UInt32(hold * 1_000_000)) }
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }

    var arrivals: [String] { order.withLock { $0 } }
}

/// A value shared with concurrently running closures (a `Mutex` cannot be captured by `sending` ones).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
