import Foundation

/// What a loader brings back.
public struct ImageLoadResult: Sendable {
    public var data: Data
    /// The answer's description, for loaders that have one (HTTP); nil for files.
    public var response: (any ImageLoadResponse)?
    /// `data` is the file's beginning only, enough for the first frame (the loader stopped where
    /// the context's `FirstFrameLoad` said that frame ends): decoded, never cached or passed on.
    public var isPrefix: Bool

    public init(data: Data, response: (any ImageLoadResponse)? = nil, isPrefix: Bool = false) {
        self.data = data
        self.response = response
        self.isPrefix = isPrefix
    }
}
