/// Where one request's time went (Nuke's `ImageTaskMetrics`), on every `ImageResult` the manager
/// delivers: each stage it ran or waited for, where the image came from, and whether it shared work
/// another request started. A stage the request did not go through is nil.
///
/// A request that joined work in flight (`isCoalesced`) reports that work's stage durations as the
/// request that started it measured them; its `totalDuration` is its own.
import PipelineCore

public struct ImageTaskMetrics: Sendable, Hashable {
    /// From the call to the result.
    public var totalDuration: Duration
    /// The cache queries after the synchronous memory check (the final key, then the original key).
    public var cacheQueryDuration: Duration?
    /// The loader's work, from asking for the bytes to having them (waiting for a shared download
    /// included).
    public var loadDuration: Duration?
    /// Waiting to decode: for a CPU worker (`ImageManager`'s `cpuConcurrency`) and for room in the
    /// decode memory budget.
    public var decodeWaitDuration: Duration?
    /// Decoding the loaded bytes, on a worker: the wait for one is `decodeWaitDuration`.
    public var decodeDuration: Duration?
    /// Running the transformer.
    public var transformDuration: Duration?
    /// Waiting for the cache stores: only with `.waitStoreCache` (otherwise they run after the result).
    public var storeDuration: Duration?
    /// Bytes the loader delivered.
    public var loadedBytes: Int?
    /// Where the image came from: `.none` for the loader, `.memory` or `.disk` for the caches.
    public var cacheType: ImageCacheType
    /// True when the request joined a download, decode or transform that another request had started.
    public var isCoalesced: Bool

    package init(
        totalDuration: Duration = .zero, cacheQueryDuration: Duration? = nil, loadDuration: Duration? = nil,
        decodeWaitDuration: Duration? = nil, decodeDuration: Duration? = nil, transformDuration: Duration? = nil, storeDuration: Duration? = nil,
        loadedBytes: Int? = nil, cacheType: ImageCacheType = .none, isCoalesced: Bool = false
    ) {
        self.totalDuration = totalDuration
        self.cacheQueryDuration = cacheQueryDuration
        self.loadDuration = loadDuration
        self.decodeWaitDuration = decodeWaitDuration
        self.decodeDuration = decodeDuration
        self.transformDuration = transformDuration
        self.storeDuration = storeDuration
        self.loadedBytes = loadedBytes
        self.cacheType = cacheType
        self.isCoalesced = isCoalesced
    }
}

extension ImageTaskMetrics {
    /// Adds the stages a shared download, decode or transform measured.
    mutating func merge(_ shared: ImageTaskMetrics) {
        loadDuration = shared.loadDuration ?? loadDuration
        decodeWaitDuration = shared.decodeWaitDuration ?? decodeWaitDuration
        decodeDuration = shared.decodeDuration ?? decodeDuration
        transformDuration = shared.transformDuration ?? transformDuration
        loadedBytes = shared.loadedBytes ?? loadedBytes
        isCoalesced = isCoalesced || shared.isCoalesced
    }
}
