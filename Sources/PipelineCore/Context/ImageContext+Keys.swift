import Foundation

// The keys of SDWebImage's context that mean something on Linux and to every loader, typed.
// SDWebImage's raw names are in the comments; ImagePipe drops their `image`/`download` prefixes
// where the type already says it. Keys of one loader live in its plugin (LoaderHTTP's modifiers).

extension ImageContext.Key where Value == any ImageCoder {
    /// `imageCoder`: decode and encode with exactly this coder, without asking `canDecode`.
    /// Default: the coders manager.
    public static var imageCoder: Self { .init("imageCoder") }
}

extension ImageContext.Key where Value == ImageDecodeOptions {
    /// `imageDecodeOptions`: base decode options; the keys below override their fields.
    public static var decodeOptions: Self { .init("decodeOptions") }
}

extension ImageContext.Key where Value == ImageEncodeOptions {
    /// `imageEncodeOptions`: how a cache encodes an image it has no bytes for.
    public static var encodeOptions: Self { .init("encodeOptions") }
}

extension ImageContext.Key where Value == ImageSize {
    /// `imageThumbnailPixelSize`: decode no larger than this box. Part of the cache key.
    public static var thumbnailPixelSize: Self { .init("thumbnailPixelSize") }
}

extension ImageContext.Key where Value == Bool {
    /// `imagePreserveAspectRatio`: fit the thumbnail inside its box (true, default) or stretch to it.
    public static var preserveAspectRatio: Self { .init("preserveAspectRatio") }
}

extension ImageContext.Key where Value == Double {
    /// `imageScaleFactor`: pixels per point of the result, at least 1. Default: from an `@2x`/`@3x`
    /// in the key, else 1.
    public static var scaleFactor: Self { .init("scaleFactor") }
}

extension ImageContext.Key where Value == ImageColorHandling {
    /// Convert to sRGB (default) or keep the source profile; overrides the decode options' field.
    /// Part of the cache key when not the default.
    public static var colorHandling: Self { .init("colorHandling") }
}

extension ImageContext.Key where Value == ImageMetadataHandling {
    /// Strip EXIF and XMP (default) or keep them; overrides the decode options' field. Part of the
    /// cache key when not the default.
    public static var metadataHandling: Self { .init("metadataHandling") }
}

extension ImageContext.Key where Value == Int {
    /// `imageScaleDownLimitBytes`: byte budget for decoded pixels (all frames). Not part of the key.
    public static var scaleDownLimitBytes: Self { .init("scaleDownLimitBytes") }
}

extension ImageContext.Key where Value == Image {
    /// `loaderCachedImage`: set by the manager for `.refreshCached` so the loader can revalidate.
    public static var loaderCachedImage: Self { .init("loaderCachedImage", preventsCoalescing: true) }
}

extension ImageContext.Key where Value == CacheValidators {
    /// The source's validators: set by the manager on a store (from the loader's response, so the
    /// cache keeps them with the entry) and, for `.refreshCached`, on the load (from the cached
    /// entry, so the loader asks conditionally).
    public static var cacheValidators: Self { .init("cacheValidators") }
}
