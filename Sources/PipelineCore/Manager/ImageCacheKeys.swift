import Foundation

/// The keys of one request, derived once.
struct ImageCacheKeys: Sendable {
    /// The URL through the key filter: where the original image lives.
    let original: String
    /// `original` plus the thumbnail, colour, metadata and transformer suffixes.
    let final: String
    let transformer: (any ImageTransformer)?

    init(url: URL?, context: ImageContext, settings: ImageManager.Settings) {
        let filter = context[.cacheKeyFilter] ?? settings.cacheKeyFilter
        original = url.map { ImageCacheKey.key(for: $0, filter: filter) } ?? ""
        let chosen = context[.imageTransformer] ?? settings.transformer
        transformer = chosen is NoImageTransformer ? nil : chosen
        var key = original
        if let size = context[.thumbnailPixelSize], !size.isEmpty {
            key = ImageCacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: context[.preserveAspectRatio] ?? true)
        }
        if let suffix = (context[.colorHandling] ?? context[.decodeOptions]?.colorHandling)?.cacheKeySuffix {
            key = ImageCacheKey.transformed(key, transformerKey: suffix)
        }
        if let suffix = (context[.metadataHandling] ?? context[.decodeOptions]?.metadataHandling)?.cacheKeySuffix {
            key = ImageCacheKey.transformed(key, transformerKey: suffix)
        }
        if let transformer {
            key = ImageCacheKey.transformed(key, transformerKey: transformer.key)
        }
        final = key
    }
}
