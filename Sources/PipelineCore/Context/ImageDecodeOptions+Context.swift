import Foundation

extension ImageDecodeOptions {
    /// The decode options a request asks for (SDWebImage's `SDGetDecodeOptionsFromContext`): the
    /// context's `.decodeOptions` as the base, overridden by `.decodeFirstFrameOnly`, `.preloadAllFrames`, the scale
    /// (context value if at least 1, else `@2x`/`@3x` in the key), preserve-aspect-ratio, thumbnail
    /// size, byte budget (context value, else the default budget with `.scaleDownLargeImages`), and the
    /// key's path extension as a hint — of the key's URL path, so a query string never leaks into it
    /// (SDWebImage takes the extension of the whole key string).
    public init(options: ImageOptions, context: ImageContext, cacheKey: String? = nil) {
        self = context[.coreDecodeOptions] ?? ImageDecodeOptions()
        if options.contains(.coreDecodeFirstFrameOnly) { firstFrameOnly = true }
        if options.contains(.corePreloadAllFrames) { preloadAllFrames = true }
        if let scale = context[.coreScaleFactor], scale >= 1 {
            scaleFactor = scale
        } else if let cacheKey {
            scaleFactor = Self.scaleFactor(fromKey: cacheKey)
        }
        if let preserve = context[.corePreserveAspectRatio] { preserveAspectRatio = preserve }
        if let size = context[.coreThumbnailPixelSize] { thumbnailPixelSize = size.isEmpty ? nil : size }
        if let handling = context[.colorHandling] { colorHandling = handling }
        if let handling = context[.coreMetadataHandling] { metadataHandling = handling }
        if let limit = context[.coreScaleDownLimitBytes] {
            scaleDownLimitBytes = limit
        } else if options.contains(.coreScaleDownLargeImages) {
            scaleDownLimitBytes = ImageSizeMath.defaultScaleDownLimitBytes
        }
        if fileExtensionHint == nil, let cacheKey {
            let ext = URL(string: cacheKey)?.pathExtension ?? PathText.pathExtension(cacheKey)
            if !ext.isEmpty { fileExtensionHint = ext }
        }
    }

    /// SDWebImage's `SDImageScaleFactorForKey`: `@2x.` or `@3x.` in the key's file name gives the
    /// scale; anything else 1.
    static func scaleFactor(fromKey key: String) -> Double {
        let name = (URL(string: key)?.lastPathComponent).flatMap { $0.isEmpty ? nil : $0 } ?? PathText.lastPathComponent(key)
        // Foundation's `contains` goes through NSString, once per decode; most names have no "@".
        guard name.utf8.contains(UInt8(ascii: "@")) else { return 1 }
        for scale in [2, 3] where name.contains("@\(scale)x.") {
            return Double(scale)
        }
        return 1
    }
}
