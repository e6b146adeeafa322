import Dispatch
import Foundation
import Synchronization

/// One disk read per key at a time: concurrent queries of a key that is not in memory share the
/// read in flight instead of each reading the same file (Kingfisher's #966: a grid of one image
/// read it once per cell). Each caller still decodes with its own options.
final class DiskReadCoalescer: Sendable {
    private struct Flight {
        let task: Task<Data?, Never>
        var waiters: Int
    }

    private let flights = Mutex<[String: Flight]>([:])
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The bytes `read` returns for `key`, from the read already in flight when there is one; nil on
    /// a miss or at once when the calling task is cancelled (the read goes on for the others).
    func data(forKey key: String, read: @escaping @Sendable () -> Data?) async -> Data? {
        let task = flights.withLock { flights -> Task<Data?, Never> in
            if var flight = flights[key] {
                flight.waiters += 1
                flights[key] = flight
                return flight.task
            }
            let task = Task { [queue] in
                let data = await BlockingIO.run(on: queue, read)
                // Leaves before answering, so a caller arriving after this reads afresh (the file
                // may have changed) rather than joining a finished flight.
                _ = self.flights.withLock { $0.removeValue(forKey: key) }
                return data
            }
            flights[key] = Flight(task: task, waiters: 1)
            return task
        }
        return await valueUnlessCancelled(of: task)
    }

    /// Callers that joined the read in flight for `key` (0 when none): lets tests line up
    /// concurrent queries before a read finishes.
    func waiters(forKey key: String) -> Int {
        flights.withLock { $0[key]?.waiters ?? 0 }
    }
}
