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

    /// Whether `error` means the URL will never load, so the manager puts it on the failed-URL list.
    /// Cancellation and transient failures must answer false.
    func shouldBlockFailedURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool
}

extension ImageLoader {
    /// SDWebImage's rule: only invalid URLs and undecodable data are permanent.
    public func shouldBlockFailedURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        error.isPermanentByDefault
    }
}

/// How far a load has come.
public struct ImageLoadProgress: Sendable, Hashable {
    public var receivedBytes: Int64
    /// Nil while the total is unknown (no `Content-Length`).
    public var expectedBytes: Int64?
    /// All bytes received so far, when the request asked for `.progressiveLoad`.
    public var partialData: Data?

    public init(receivedBytes: Int64, expectedBytes: Int64?, partialData: Data? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.partialData = partialData
    }

    /// 0…1, or nil when the total is unknown.
    public var fraction: Double? {
        guard let expected = expectedBytes, expected > 0 else { return nil }
        return min(Double(receivedBytes) / Double(expected), 1)
    }
}

/// What a loader brings back.
public struct ImageLoadResult: Sendable {
    public var data: Data
    /// The response, for loaders that have one (HTTP); nil for files.
    public var response: ImageLoadResponse?

    public init(data: Data, response: ImageLoadResponse? = nil) {
        self.data = data
        self.response = response
    }
}
