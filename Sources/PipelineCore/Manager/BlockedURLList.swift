import Foundation
import Synchronization

/// URLs blocked after a failure a retry cannot fix (SDWebImage's `failedURLs`): loads of them fail
/// with `blockedURL` until removed or retried with `.retryFailed`, which takes them off on success.
public final class BlockedURLList: Sendable {
    private let urls = Mutex<Set<String>>([])

    public init() {}

    public func contains(_ url: URL) -> Bool { urls.withLock { $0.contains(url.absoluteString) } }
    public func insert(_ url: URL) { _ = urls.withLock { $0.insert(url.absoluteString) } }
    public func remove(_ url: URL) { _ = urls.withLock { $0.remove(url.absoluteString) } }
    public func removeAll() { urls.withLock { $0.removeAll() } }
    public var count: Int { urls.withLock { $0.count } }
}
