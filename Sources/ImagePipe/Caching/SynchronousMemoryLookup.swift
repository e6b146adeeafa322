/// A cache of this module whose `query` takes its memory answer from `memoryImage`, synchronously:
/// the manager's flow asks it directly for a plain memory hit, which then needs no task, no stream
/// and no async hop (a hit costs about a microsecond instead of tens).
import PipelineCore
protocol SynchronousMemoryLookup: ImageCache {
    /// The image `query` answers from memory for `key` with these options and context, or nil.
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image?
}

extension DefaultImageCache: SynchronousMemoryLookup {
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        guard let image = memoryCache.value(forKey: key) else { return nil }
        // `ImageDecodeOptions(options:context:)`'s rule for this one field, without building them
        // (that parses the key as a URL).
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly) || (!context.isEmpty && context[.decodeOptions]?.firstFrameOnly == true)
        return firstFrameOnly ? image.firstFrameOnly() : image
    }
}

extension ImageCachesManager: SynchronousMemoryLookup {
    /// Answers only when the cache the query policy asks first has the image in memory (see
    /// `MemoryRoute`): no lock every thread takes, no cast, no copy of the cache list.
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        memoryRoute.memoryImage(forKey: key, options: options, context: context)
    }
}

/// A `SynchronousMemoryLookup` by its class, unretained: asking a cache through a protocol value
/// copies the value first, a retain and a release of the cache object, a cache line every thread's
/// hits would write. Unmanaged references are asked through `_withUnsafeGuaranteedRef`, which
/// retains nothing. Whoever keeps one must hold the cache strongly for at least as long
/// (`ImageManager.cache`, `MemoryRoute`'s entries); that is what keeps the object alive.
enum UnretainedMemoryLookup: Sendable {
    case defaultCache(Unmanaged<DefaultImageCache>)
    case cachesManager(Unmanaged<ImageCachesManager>)

    /// nil for caches that do not answer memory hits synchronously.
    /// Both classes are final, so the dynamic type tells first; only a cast that succeeds is made.
    /// A class cast that fails makes the runtime search every conformance record of the program
    /// (for Foundation's boxed values), which every process that builds a manager would pay.
    init?(_ cache: any ImageCache) {
        let dynamicType = type(of: cache)
        if dynamicType == DefaultImageCache.self, let cache = cache as? DefaultImageCache {
            self = .defaultCache(.passUnretained(cache))
        } else if dynamicType == ImageCachesManager.self, let caches = cache as? ImageCachesManager {
            self = .cachesManager(.passUnretained(caches))
        } else {
            return nil
        }
    }

    @inline(__always)
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        switch self {
        case .defaultCache(let cache):
            cache._withUnsafeGuaranteedRef { $0.memoryImage(forKey: key, options: options, context: context) }
        case .cachesManager(let caches):
            caches._withUnsafeGuaranteedRef { $0.memoryImage(forKey: key, options: options, context: context) }
        }
    }
}
