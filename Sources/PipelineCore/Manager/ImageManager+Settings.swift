import Foundation

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
        public init() {}
    }
}
