import Foundation

/// Fetches the bytes behind a URL: HTTP, files, `data:` URLs, or anything a plugin adds.
///
/// Loaders deliver bytes, not images: decoding is the pipeline's next stage, so one download can
/// feed several decodes (different thumbnail sizes) and every loader gets the same coders.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` for this request.
    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool

    /// Loads the bytes. Honours task cancellation by throwing `ImagePipeError.cancelled`; reports
    /// progress through `progress` (monotonic, ending at the total when it is known). With
    /// `.progressiveLoad` in `options`, progress events carry the bytes received so far.
    func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult

    /// Whether `error` means the URL will never load, so the manager puts it on the blocked-URL list.
    /// Cancellation and transient failures must answer false.
    func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool
}

extension ImageLoader {
    /// SDWebImage's rule: only invalid URLs and undecodable data block the URL.
    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        error.blocksURLByDefault
    }
}
