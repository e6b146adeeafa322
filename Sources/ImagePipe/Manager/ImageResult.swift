import Foundation
import PipelineCore

/// What a load delivers (SDWebImage's completion arguments).
public struct ImageResult: Sendable {
    /// Nil only when a `.fromCacheOnly` load missed or the manager's `shouldDownload` vetoed the
    /// load: that is not an error, as in SDWebImage. A URL no loader takes is one (`invalidURL`).
    public var image: Image?
    /// The encoded bytes; nil when the image was transformed or decoded as a thumbnail (they no longer
    /// describe it), and for memory hits unless `.queryMemoryData` was asked for.
    public var data: Data?
    /// Where the image came from: `.none` for the loader, `.memory` or `.disk` for the caches.
    public var cacheType: ImageCacheType
    public var url: URL?
    /// False for partial images of a progressive load.
    public var isFinished: Bool
    /// Where this request's time went; set on every final result the manager delivers.
    public var metrics: ImageTaskMetrics?

    package init(image: Image?, data: Data?, cacheType: ImageCacheType, url: URL?, isFinished: Bool = true, metrics: ImageTaskMetrics? = nil) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
        self.isFinished = isFinished
        self.metrics = metrics
    }

    /// What the decoder recovered from while making `image` (its `metadata.warnings`): also on
    /// memory-cache hits, and again when cached bytes are decoded anew.
    public var warnings: [ImageDecodeWarning] { image?.metadata.warnings ?? [] }
}
