import Foundation

/// What a source said about its bytes that lets a cache ask again cheaply and know how long to
/// keep them: HTTP's `ETag` and `Last-Modified` (sent back as `If-None-Match` /
/// `If-Modified-Since` by a `.refreshCached` load, which a 304 answers with the cached image) and
/// its freshness lifetime (`Cache-Control: max-age`, `Expires`).
///
/// A loader reports them on its response (`ImageLoadResponse.cacheValidators`); the manager hands
/// them to the cache with the store (`ImageContext.Key.cacheValidators`), and `DefaultImageCache`
/// keeps them with the disk entry, so a revalidation works after a restart and from any process
/// sharing the folder; a query reports them (`ImageCacheResult.validators`) and the manager hands
/// them to the loader in the same context key.
public struct CacheValidators: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?
    /// How long the bytes stay fresh from when they arrived, as the source said (0 for
    /// `no-store` / `no-cache`); nil when it did not say. Used only by a cache configured to honour
    /// it (`DiskCache.Configuration.honorsSourceExpiry`).
    public var freshnessLifetime: TimeInterval?

    public init(etag: String? = nil, lastModified: String? = nil, freshnessLifetime: TimeInterval? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.freshnessLifetime = freshnessLifetime
    }

    /// Longest validator kept: a real ETag or date is tens of bytes; the cache folder is not
    /// trusted to hold what this code wrote, and a header is sent back as it is.
    static let maxLength = 1024

    /// Whether a conditional request can be made.
    package var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// These validators with over-long, empty or control-character values dropped, and a lifetime
    /// that is not a finite, non-negative number: what a cache read from storage it does not trust
    /// can hand on (a value is sent back as a header).
    package var sanitized: CacheValidators {
        func clean(_ value: String?) -> String? {
            guard let value, !value.isEmpty, value.utf8.count <= Self.maxLength,
                !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { return nil }
            return value
        }
        let lifetime = freshnessLifetime.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return CacheValidators(etag: clean(etag), lastModified: clean(lastModified), freshnessLifetime: lifetime)
    }
}
