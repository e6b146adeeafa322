import Foundation

/// How far a load has come: what a loader reports while it receives bytes.
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
}
