import Foundation

// The keys of SDWebImage's context that mean something on Linux and to every loader, typed.
// SDWebImage's raw names are in the comments; ImagePipe drops their `image`/`download` prefixes
// where the type already says it. Keys of one loader live in its plugin (LoaderHTTP's modifiers);
// the request's decode keys (`.decodeOptions`, `.thumbnailPixelSize`, …) live in ImagePipe.

extension ImageContext.Key where Value == any ImageCoder {
    /// `imageCoder`: decode and encode with exactly this coder, without asking `canDecode`.
    /// Default: the coders manager.
    public static var imageCoder: Self { .init("imageCoder") }
}

extension ImageContext.Key where Value == ImageEncodeOptions {
    /// `imageEncodeOptions`: how a cache encodes an image it has no bytes for.
    public static var encodeOptions: Self { .init("encodeOptions") }
}

extension ImageContext.Key where Value == ImageColorHandling {
    /// Convert to sRGB (default) or keep the source profile; overrides the decode options' field.
    /// Part of the cache key when not the default.
    public static var colorHandling: Self { .init("colorHandling") }
}

extension ImageContext.Key where Value == CacheValidators {
    /// The source's validators: set by the manager on a store (from the loader's response, so the
    /// cache keeps them with the entry) and, for `.refreshCached`, on the load (from the cached
    /// entry, so the loader asks conditionally).
    public static var cacheValidators: Self { .init("cacheValidators") }
}

// The engine's keys the core reads to build decode options (`ImageDecodeOptions(options:context:
// cacheKey:)`): their names are defined here, once; ImagePipe's public keys are these values.
extension ImageContext.Key where Value == ImageDecodeOptions {
    package static var coreDecodeOptions: Self { .init("decodeOptions") }
}

extension ImageContext.Key where Value == ImageSize {
    package static var coreThumbnailPixelSize: Self { .init("thumbnailPixelSize") }
}

extension ImageContext.Key where Value == Bool {
    package static var corePreserveAspectRatio: Self { .init("preserveAspectRatio") }
}

extension ImageContext.Key where Value == Double {
    package static var coreScaleFactor: Self { .init("scaleFactor") }
}

extension ImageContext.Key where Value == ImageMetadataHandling {
    package static var coreMetadataHandling: Self { .init("metadataHandling") }
}

extension ImageContext.Key where Value == Int {
    package static var coreScaleDownLimitBytes: Self { .init("scaleDownLimitBytes") }
}
