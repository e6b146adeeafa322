import Foundation
import PipelineCore

/// How `FileLoader` reads. Defaults are safe for untrusted paths only when `allowedRoots` is set.
public struct FileLoaderConfiguration: Sendable {
    /// Directories a path must resolve into (after symlinks, via `realpath`); nil allows any path.
    /// A server handing user-supplied paths to the loader should always set this.
    public var allowedRoots: [String]?
    /// Files (and decoded `data:` payloads) larger than this fail with `limitExceeded(.fileSize)`
    /// before anything is read. Default 256 MiB: far above any sane image, small enough that a
    /// hostile path (a disk image, `/dev/zero` is refused anyway) cannot exhaust memory.
    public var maxBytes: Int64
    /// Bytes read per `read(2)`; progress and cancellation are checked between chunks. Default 1 MiB.
    public var chunkSize: Int

    public init(allowedRoots: [String]? = nil, maxBytes: Int64 = 256 << 20, chunkSize: Int = 1 << 20) {
        self.allowedRoots = allowedRoots
        self.maxBytes = maxBytes
        self.chunkSize = max(4096, chunkSize)
    }
}

extension ImagePipeError.Limit {
    /// Bytes of a file or `data:` payload: `FileLoaderConfiguration.maxBytes`.
    public static let fileSize = Self(name: "fileSize", setting: "FileLoaderConfiguration.maxBytes")
}
