import Foundation
import PipelineCore

#if canImport(Glibc)
import Glibc
#endif

/// Loads `file://` URLs, plain paths and `data:` URLs.
///
/// A missing file blocks its URL: `shouldBlockURL` answers true, so the manager refuses the URL
/// until `.retryFailed` is passed. Files appear rarely by themselves,
/// and re-stat-ing a missing path on every cell reuse of a list is the waste SDWebImage's list
/// exists to avoid. Permission and I/O errors are not blocked (they are often fixed in place).
public final class FileLoader: ImageLoader {
    public let configuration: FileLoaderConfiguration
    /// `allowedRoots` after `realpath`, so a root given through a symlink (`/tmp` on some systems)
    /// still matches the resolved paths it is compared with.
    private let resolvedRoots: [String]?

    public init(configuration: FileLoaderConfiguration = FileLoaderConfiguration()) {
        self.configuration = configuration
        resolvedRoots = configuration.allowedRoots?.map { Self.realPath($0) ?? $0 }
    }

    public func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        switch url.scheme?.lowercased() {
        case "file", "data": true
        case nil: !url.path.isEmpty
        default: false
        }
    }

    /// With the context's `FirstFrameLoad` (a first-frame-only decode), a file is read only as far
    /// as its first frame ends when its coder can tell where that is (GIF): the result is then
    /// `isPrefix`, and the last progress event reports that length as the total.
    public func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        try await loadTyped(url, firstFrame: context[.firstFrameLoad], progress: progress)
    }

    /// `load` with its error type spelled out.
    public func loadTyped(
        _ url: URL, firstFrame: FirstFrameLoad? = nil, progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws(ImagePipeError) -> ImageLoadResult {
        if Task.isCancelled { throw .cancelled }
        if url.scheme?.lowercased() == "data" {
            let data = try DataURL.decode(url.absoluteString, maxBytes: configuration.maxBytes)
            progress?(ImageLoadProgress(receivedBytes: Int64(data.count), expectedBytes: Int64(data.count)))
            return ImageLoadResult(data: data)
        }
        let path = url.path
        guard !path.isEmpty else { throw .invalidURL(url.absoluteString) }
        let readPath = try checkedPath(path)
        let read = try await FileReader.read(
            path: readPath, maxBytes: configuration.maxBytes,
            chunkSize: configuration.chunkSize, firstFrame: firstFrame, progress: progress)
        return ImageLoadResult(data: read.data, isPrefix: read.isPrefix)
    }

    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        switch error {
        case .fileSystem(_, let reason): reason == FileReader.missingReason
        case .limitExceeded: true
        default: error.blocksURLByDefault
        }
    }

    /// The path to open: resolved and checked against the allowed roots when there are any. The
    /// resolved path is what gets opened, so a symlink swapped after the check cannot redirect the
    /// read outside the roots (short of a swap inside an allowed directory's own components).
    private func checkedPath(_ path: String) throws(ImagePipeError) -> String {
        guard let roots = resolvedRoots else { return path }
        guard let resolved = Self.realPath(path) else {
            throw .fileSystem(path: path, reason: errno == ENOENT || errno == ENOTDIR ? FileReader.missingReason : String(cString: strerror(errno)))
        }
        let inside = roots.contains { root in
            resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
        guard inside else { throw .accessDenied(path: path) }
        return resolved
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
