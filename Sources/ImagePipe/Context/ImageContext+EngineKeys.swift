import Foundation
import PipelineCore

// The context keys only the manager reads: which caches and loader a request uses, how it queries
// and stores, its cache key rules and where its completion runs. SDWebImage's raw names are in the
// comments, as in PipelineCore's keys.

extension ImageContext.Key where Value == any ImageCache {
    /// `imageCache`: the cache for this request's final image. Default: the manager's.
    public static var imageCache: Self { .init("imageCache") }
    /// `originalImageCache`: the cache for the original (untransformed, full-size) image.
    /// Default: `imageCache`, else the manager's.
    public static var originalImageCache: Self { .init("originalImageCache") }
}

extension ImageContext.Key where Value == any ImageLoader {
    /// `imageLoader`: the loader for this request. Default: the manager's.
    public static var imageLoader: Self { .init("imageLoader") }
}

extension ImageContext.Key where Value == any ImageTransformer {
    /// `imageTransformer`: the transformer for this request; `NoImageTransformer()` switches off the
    /// manager's. Default: the manager's.
    public static var imageTransformer: Self { .init("imageTransformer") }
}

extension ImageContext.Key where Value == ImageCacheType {
    /// `queryCacheType`: where to look for the final key. Default `.all`.
    public static var queryCacheType: Self { .init("queryCacheType") }
    /// `storeCacheType`: where to store the final image; also whether disk hits are promoted to memory.
    /// Default `.all`.
    public static var storeCacheType: Self { .init("storeCacheType") }
    /// `originalQueryCacheType`: where to look for the original when the final key missed. Default `.disk`.
    public static var originalQueryCacheType: Self { .init("originalQueryCacheType") }
    /// `originalStoreCacheType`: where to store the original when a transformer or thumbnail is used.
    /// Default `.disk`.
    public static var originalStoreCacheType: Self { .init("originalStoreCacheType") }
}

extension ImageContext.Key where Value == ImageCacheKeyFilter {
    /// `cacheKeyFilter`: overrides the manager's key filter.
    public static var cacheKeyFilter: Self { .init("cacheKeyFilter") }
}

extension ImageContext.Key where Value == ImageCacheSerializer {
    /// `cacheSerializer`: overrides the manager's serializer.
    public static var cacheSerializer: Self { .init("cacheSerializer") }
}

extension ImageContext.Key where Value == any CallbackExecutor {
    /// `callbackQueue`: where completions run. Default: immediately, on the finishing thread.
    public static var callbackExecutor: Self { .init("callbackExecutor") }
}

// The request's decode keys: what to decode and how large. The core reads them to build a request's
// decode options (`ImageDecodeOptions(options:context:cacheKey:)`) and defines their names.

extension ImageContext.Key where Value == ImageDecodeOptions {
    /// `imageDecodeOptions`: base decode options; the keys below override their fields.
    public static var decodeOptions: Self { .coreDecodeOptions }
}

extension ImageContext.Key where Value == ImageSize {
    /// `imageThumbnailPixelSize`: decode no larger than this box. Part of the cache key.
    public static var thumbnailPixelSize: Self { .coreThumbnailPixelSize }
}

extension ImageContext.Key where Value == Bool {
    /// `imagePreserveAspectRatio`: fit the thumbnail inside its box (true, default) or stretch to it.
    public static var preserveAspectRatio: Self { .corePreserveAspectRatio }
}

extension ImageContext.Key where Value == Double {
    /// `imageScaleFactor`: pixels per point of the result, at least 1. Default: from an `@2x`/`@3x`
    /// in the key, else 1.
    public static var scaleFactor: Self { .coreScaleFactor }
}

extension ImageContext.Key where Value == ImageMetadataHandling {
    /// Strip EXIF and XMP (default) or keep them; overrides the decode options' field. Part of the
    /// cache key when not the default.
    public static var metadataHandling: Self { .coreMetadataHandling }
}

extension ImageContext.Key where Value == Int {
    /// `imageScaleDownLimitBytes`: byte budget for decoded pixels (all frames). Not part of the key.
    public static var scaleDownLimitBytes: Self { .coreScaleDownLimitBytes }
}

extension ImageContext.Key where Value == Image {
    /// `loaderCachedImage`: set by the manager for `.refreshCached` so the loader can revalidate.
    package static var loaderCachedImage: Self { .init("loaderCachedImage", preventsCoalescing: true) }
}
