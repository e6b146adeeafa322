import Foundation

/// A tier a fleet of servers shares (`imagepipe serve --redis` puts CacheRedis behind it): rendered
/// results, renders single-flight across servers, and purge generations. Every method degrades: an
/// unreachable tier answers a miss, drops a store, renders alone, and reports a purge not done.
package protocol SharedResultStore: Sendable {
    /// A token of `source`'s purge generation, folded into every key made from it: empty while it
    /// was never purged; nil when the tier cannot be asked.
    func purgeGeneration(of source: URL) async -> String?
    func result(forKey key: String) async -> SharedResultLookup
    /// Keeps `result` for the fleet; one over the tier's size limit stays local.
    func store(_ result: SharedResult, forKey key: String) async
    /// `render` (which stores what it makes) run by one server at a time for `key`; nil when
    /// another server stored the result while this one waited (look it up again).
    func renderOnce<T, E: Error>(forKey key: String, _ render: () async throws(E) -> T) async throws(E) -> T?
    /// Makes every result and source copy made from `source` unreachable, fleet-wide; false when
    /// the tier did not confirm it.
    func purge(source: URL) async -> Bool
    /// As `purge(source:)` for every source under `prefix`.
    func purge(prefix: String) async -> Bool
    /// Whether `purge(prefix:)` can purge `prefix` (its depth and shape).
    func isPurgeablePrefix(_ prefix: String) -> Bool
}

/// A rendered result as the fleet keeps it.
package struct SharedResult: Sendable, Equatable {
    package var data: Data
    /// `ImageFormat.identifier`.
    package var formatIdentifier: String
    package var etag: String
    /// The origin's `Last-Modified`, passed on with the result.
    package var lastModified: String?

    package init(data: Data, formatIdentifier: String, etag: String, lastModified: String?) {
        self.data = data
        self.formatIdentifier = formatIdentifier
        self.etag = etag
        self.lastModified = lastModified
    }
}

package enum SharedResultLookup: Sendable, Equatable {
    case hit(SharedResult)
    /// Too large to share: render locally, without waiting for another server.
    case localOnly
    case miss
}
