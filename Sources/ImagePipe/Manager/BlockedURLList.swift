import Foundation
import PipelineCore
import Synchronization

/// URLs blocked after a failure a retry cannot fix (SDWebImage's `failedURLs`): loads of them fail
/// with `blockedURL` until the entry expires, is removed, or is retried with `.retryFailed`, which
/// takes it off on success. Unlike SDWebImage's list, which holds a URL for the process's life,
/// entries expire (a server sees fresh uploads under URLs that failed a minute ago) and the list
/// is bounded: past `capacity` the entry closest to expiring goes first.
///
/// Every load asks `contains`, and the list is nearly always empty: the count is kept beside the
/// entries, written under the lock and read without it, so asking an empty list writes nothing (a
/// lock every load took would move one cache line between the cores on every memory hit). A change
/// stores the new count before the lock is let go, and a reader loads it with acquiring order, so
/// whatever happens after `insert` returns finds the URL.
final class BlockedURLList: Sendable {
    /// Each URL with the instant its block ends.
    private let entries = Mutex<[String: ContinuousClock.Instant]>([:])
    private let storedCount = Atomic<Int>(0)

    init() {}

    /// Reads the clock only when something is blocked: a clock read is a tenth of a memory hit.
    func contains(_ url: URL) -> Bool {
        guard storedCount.load(ordering: .acquiring) > 0 else { return false }
        return contains(url, now: .now)
    }

    func contains(_ url: URL, now: ContinuousClock.Instant) -> Bool {
        guard storedCount.load(ordering: .acquiring) > 0 else { return false }
        let key = url.absoluteString
        return change { entries in
            guard let end = entries[key] else { return false }
            if end > now { return true }
            entries[key] = nil
            return false
        }
    }

    /// Blocks `url` for `lifetime`, dropping the entries closest to expiring past `capacity`.
    func insert(_ url: URL, lifetime: Duration, capacity: Int, now: ContinuousClock.Instant = .now) {
        change { entries in
            entries[url.absoluteString] = now + lifetime
            while entries.count > max(capacity, 0), let first = entries.min(by: { $0.value < $1.value }) {
                entries[first.key] = nil
            }
        }
    }

    func remove(_ url: URL) { change { $0[url.absoluteString] = nil } }
    func removeAll() { change { $0.removeAll() } }
    var count: Int { storedCount.load(ordering: .acquiring) }

    private func change<T>(_ body: (inout [String: ContinuousClock.Instant]) -> T) -> T {
        entries.withLock { entries in
            let result = body(&entries)
            storedCount.store(entries.count, ordering: .releasing)
            return result
        }
    }
}
