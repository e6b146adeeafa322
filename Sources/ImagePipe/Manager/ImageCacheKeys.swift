import Foundation
import PipelineCore

/// The keys of one request, derived once.
struct ImageCacheKeys: Sendable {
    /// The URL through the key filter: where the original image lives.
    let original: String
    /// `original` plus the thumbnail, colour, metadata and transformer suffixes.
    let final: String
    let transformer: (any ImageTransformer)?

    init(url: URL?, context: ImageContext, settings: ImageManager.SettingsSnapshot) {
        self.init(url: url, context: context, defaultTransformer: settings.value.transformer, defaultKeyFilter: settings.value.cacheKeyFilter)
    }

    /// The keys with the manager's transformer and key filter where the context has none.
    @inline(__always)
    init(url: URL?, context: ImageContext, defaultTransformer: (any ImageTransformer)?, defaultKeyFilter: ImageCacheKeyFilter?) {
        let filter = context[.cacheKeyFilter] ?? defaultKeyFilter
        original = url.map { ImageCacheKey.key(for: $0, filter: filter) } ?? ""
        let chosen = context[.imageTransformer] ?? defaultTransformer
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
