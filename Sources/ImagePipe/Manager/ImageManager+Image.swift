import Foundation
import PipelineCore

extension ImagePipeError.LoadFailure {
    /// A load that was not allowed to reach a loader found nothing in the caches: `.fromCacheOnly`,
    /// or the manager's `shouldDownload` said no. Reported only by `ImageManager.image(with:)`;
    /// `loadImage` answers such a miss with a result without image, as SDWebImage does.
    public static let notCached = Self(name: "notCached", code: 3007, isTransient: true)
}

extension ImageManager {
    /// The image behind `url`, for callers who want an image or an error and nothing in between:
    /// `loadImage`, then its result's image. Throws what `loadImage` throws (always `ImagePipeError`) (`invalidURL` when
    /// no loader takes the URL), and `loadFailed(.notCached…)` where `loadImage` would answer a
    /// cache-only miss with no image.
    public func image(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext()
    ) async throws -> Image {
        let result = try await loadImage(with: url, options: options, context: context)
        guard let image = result.image else {
            let text = url?.absoluteString ?? ""
            throw ImagePipeError.loadFailed(
                .notCached, status: nil,
                message: "not cached: '\(text)' is in no cache, and the request was not allowed to load it (.fromCacheOnly or the manager's shouldDownload)")
        }
        return image
    }
}
