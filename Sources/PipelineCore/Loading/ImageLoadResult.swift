import Foundation

/// What a loader brings back.
public struct ImageLoadResult: Sendable {
    public var data: Data
    /// The answer's description, for loaders that have one (HTTP); nil for files.
    public var response: (any ImageLoadResponse)?

    public init(data: Data, response: (any ImageLoadResponse)? = nil) {
        self.data = data
        self.response = response
    }
}
