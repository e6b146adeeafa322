import Foundation
import PipelineCore
import Synchronization

/// URLs blocked after a failure a retry cannot fix (SDWebImage's `failedURLs`): loads of them fail
/// with `blockedURL` until removed or retried with `.retryFailed`, which takes them off on success.
///
/// Every load asks `contains`, and the list is nearly always empty: the count is kept beside the
/// set, written under the lock and read without it, so asking an empty list writes nothing (a
/// lock every load took would move one cache line between the cores on every memory hit). A change
/// stores the new count before the lock is let go, and a reader loads it with acquiring order, so
/// whatever happens after `insert` returns finds the URL.
final class BlockedURLList: Sendable {
    private let urls = Mutex<Set<String>>([])
    private let storedCount = Atomic<Int>(0)

    init() {}

    func contains(_ url: URL) -> Bool {
        guard storedCount.load(ordering: .acquiring) > 0 else { return false }
        return urls.withLock { $0.contains(url.absoluteString) }
    }

    func insert(_ url: URL) { change { _ = $0.insert(url.absoluteString) } }
    func remove(_ url: URL) { change { _ = $0.remove(url.absoluteString) } }
    func removeAll() { change { $0.removeAll() } }
    var count: Int { storedCount.load(ordering: .acquiring) }

    private func change(_ body: (inout Set<String>) -> Void) {
        urls.withLock { urls in
            body(&urls)
            storedCount.store(urls.count, ordering: .releasing)
        }
    }
}
