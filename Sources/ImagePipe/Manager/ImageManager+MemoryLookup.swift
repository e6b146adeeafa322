import Foundation
import PipelineCore

extension ImageManager {
    /// What the flow's memory step would answer for this request, read synchronously, or nil
    /// (SDWebImage's `sd_internalSetImageWithURL` consults the memory cache before the placeholder).
    package func memoryHit(for url: URL?, options: ImageOptions, context: ImageContext) -> ImageResult? {
        (try? ImageLoadFlow(manager: self, url: url, options: options, context: context))?.answerFromMemory()
    }

    /// What the memory cache holds for `url` under its final key, else its original (full-size,
    /// untransformed) key (SDWebImage's `sd_setImageWithPreviousCachedImageWithURL`).
    package func memoryImage(anyKeyOf url: URL, options: ImageOptions, context: ImageContext) -> Image? {
        let lookup = if let cache = context[.imageCache] { cache.synchronousMemoryLookup } else { memoryLookup }
        guard let lookup else { return nil }
        let keys = ImageCacheKeys(url: url, context: context, settings: currentSettings)
        return lookup.memoryImage(forKey: keys.final, options: options, context: context)
            ?? lookup.memoryImage(forKey: keys.original, options: options, context: context)
    }
}
