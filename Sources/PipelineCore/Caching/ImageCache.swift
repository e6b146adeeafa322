import Foundation

/// Where the pipeline keeps images between loads (SDWebImage's `SDImageCache` protocol).
///
/// Disk work blocks, so every call is async. Cancelling the calling task makes a query answer nil
/// (once); it never answers twice.
public protocol ImageCache: Sendable {
    /// The image for `key` in the levels of `cacheType`, or nil on a miss. `options` and `context`
    /// carry the decode options for data read from disk and the store type for promoting it to memory.
    func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult?
    /// Stores `image` and/or its encoded `data` under `key` in the levels of `cacheType`. Without
    /// data, a disk level encodes the image (recorded format; else GIF for animations, PNG with alpha,
    /// JPEG otherwise).
    func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async
    func remove(key: String, cacheType: ImageCacheType) async
    /// Where `key` is found: `.memory` when in memory, else `.disk`, else `.none`.
    func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType
    func clear(_ cacheType: ImageCacheType) async
}

/// A cache hit.
public struct ImageCacheResult: Sendable {
    public var image: Image?
    /// The encoded bytes, when they were read (disk hits, or memory hits with `.queryMemoryData`).
    public var data: Data?
    /// The level that answered.
    public var cacheType: ImageCacheType
    /// The source's validators stored with the entry, when the cache keeps them and the query
    /// asked (`.refreshCached`).
    public var validators: CacheValidators?

    public init(image: Image?, data: Data?, cacheType: ImageCacheType, validators: CacheValidators? = nil) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.validators = validators
    }
}
