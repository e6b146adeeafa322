import Foundation

/// Set by the manager in the context of a load whose decode reads the first frame only
/// (`ImageDecodeOptions.firstFrameOnly`): a loader that reads in pieces (the file loader) may stop
/// once `extent(of:)` says the bytes it has hold that frame, and then marks its result
/// `ImageLoadResult.isPrefix`. Such bytes are never stored in a cache or handed on as the file: the
/// manager decodes them and drops them. A loader that ignores it loads everything, as before.
public struct FirstFrameLoad: Sendable {
    /// The coder the decode will use: the request's `.imageCoder`, else the manager's coders.
    let coder: any ImageCoder

    package init(coder: any ImageCoder) {
        self.coder = coder
    }

    /// Where the first frame ends, judged from `prefix` (the file's first bytes).
    public func extent(of prefix: Data) -> ImageFirstFrameExtent {
        coder.firstFrameExtent(of: prefix)
    }
}

extension ImageContext.Key where Value == FirstFrameLoad {
    /// Set by the manager for a first-frame-only decode; see `FirstFrameLoad`.
    public static var firstFrameLoad: Self { .init("firstFrameLoad") }
}
