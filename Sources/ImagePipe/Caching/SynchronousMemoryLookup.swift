/// A cache of this module whose `query` takes its memory answer from `memoryImage`, synchronously:
/// the flow's memory step asks it directly, so a hit needs no task, no stream and no async hop (it
/// costs about a microsecond instead of tens).
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

extension ImageCache {
    /// This cache as a `SynchronousMemoryLookup`, or nil. The built-in classes are final, so the
    /// dynamic type tells first and only a cast that succeeds is made: a class cast that fails makes
    /// the runtime search every conformance record of the program, which building a manager over
    /// another cache would pay.
    var synchronousMemoryLookup: (any SynchronousMemoryLookup)? {
        let dynamicType = type(of: self)
        guard dynamicType == DefaultImageCache.self || dynamicType == ImageCachesManager.self else { return nil }
        return self as? any SynchronousMemoryLookup
    }
}
