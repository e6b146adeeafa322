import Foundation
import Logging
import PipelineCore
import Tracing

extension ImageManager {
    /// Settings that apply to every request unless its context says otherwise.
    public struct Settings: Sendable {
        public var transformer: (any ImageTransformer)?
        public var cacheKeyFilter: ImageCacheKeyFilter?
        public var cacheSerializer: ImageCacheSerializer?
        public var optionsProcessor: ImageOptionsProcessor?
        /// SDWebImage's delegate `shouldDownloadImageForURL`: false skips the download.
        public var shouldDownload: (@Sendable (URL) -> Bool)?
        /// SDWebImage's delegate `shouldBlockFailedURL`: overrides the loader's answer.
        public var shouldBlockURL: (@Sendable (URL, ImagePipeError) -> Bool)?
        /// How long a URL stays blocked after a permanent failure. SDWebImage blocks it for the
        /// process's life; a long-running server would refuse a source uploaded after a 404 for
        /// ever. Default: 10 minutes.
        public var blockedURLLifetime: Duration = .seconds(600)
        /// The most URLs blocked at once; past it the one closest to expiring is let go. Default: 10,000.
        public var maxBlockedURLs = 10_000
        /// Where the manager says what a caller cannot see in the result: a failed load (debug), a
        /// URL blocked after a permanent failure (notice), a transformer that failed so the image went
        /// on untransformed (warning), each with the URL in `image.url` and the key in `cache.key`.
        /// Silent by default.
        public var logger = Logger(label: "imagepipe.manager", factory: { _ in SwiftLogNoOpLogHandler() })
        /// The counters and timers the manager records (see `PipelineMetrics`).
        public var metrics: PipelineMetrics = .system
        /// Where each load's spans go: one span per load that misses the memory cache, with child
        /// spans for the cache queries, the fetch, the decode and the transform (see “Logs, metrics
        /// and traces”). Nil: the tracer bootstrapped with `InstrumentationSystem`; without one,
        /// no spans are made and nothing is spent. A memory hit the cache answers synchronously (as
        /// `DefaultImageCache` does) makes no span.
        public var tracer: (any Tracer)?
        public init() {}
    }
}
