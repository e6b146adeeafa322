import Foundation
import PipelineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whose folder the cache is in. A folder named by mistake (`--cache-dir ~/Documents`) must not
/// lose files to a trim or a clear, and must not be marked as a cache (backup tools skip folders
/// holding a `CACHEDIR.TAG`). So the cache writes, trims and clears only a folder that carries the
/// Cache Directory Tagging standard's tag, marking one only when it creates it or when it holds
/// nothing but names the cache could have written; and even in its own folder it touches only
/// such names.
extension DiskCache {
    /// What is at the cache's path, as far as the cache is concerned.
    public enum FolderState: Sendable, Equatable {
        /// Nothing yet: the first write creates the folder and marks it.
        case missing
        /// A folder holding a `CACHEDIR.TAG`: a cache (this one's, or one a user marked by hand).
        case cache
        /// A folder without a tag that holds only names the cache could have written (an empty
        /// folder, or a cache from before tags): the first write, trim or clear marks it.
        case unmarked
        /// A folder without a tag that holds `name`, which the cache never writes: not a cache.
        /// Writes fail with `FolderError`; trims and clears leave it alone.
        case foreign(name: String)
        /// Not a folder, or not one the cache can look into (`reason` says which).
        case unusable(reason: String)
    }

    /// A write found the cache's path unusable or holding someone else's files.
    public struct FolderError: Error, CustomStringConvertible, Equatable {
        public let path: String
        public let state: FolderState

        public var description: String {
            switch state {
            case .foreign(let name):
                "\(path) is not a cache folder: it has no \(DiskCache.tagFileName) and holds '\(name)', which the cache did not write"
            case .unusable(let reason):
                "\(path) cannot hold a cache: \(reason)"
            case .missing, .cache, .unmarked:
                "\(path) is a cache folder"
            }
        }
    }

    /// The Cache Directory Tagging standard's file name (https://bford.info/cachedir/).
    package static let tagFileName = "CACHEDIR.TAG"
    /// The first 43 bytes every tag starts with.
    static let tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
    static let tagContents =
        tagSignature + """

            # This file is a cache directory tag created by imagepipe.
            # For information about cache directory tags, see https://bford.info/cachedir/

            """
    /// Holds sidecar files of extended data; see `DiskCache+ExtendedData.swift`.
    static let sidecarDirectoryName = ".extended"

    /// What is at the cache's path now. Reads nothing but names and the tag's first bytes.
    public var folderState: FolderState {
        var info = stat()
        // The folder itself may be a symlink: the user handed that path over. Nothing inside it is
        // followed.
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? .missing : .unusable(reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return .unusable(reason: "not a folder") }
        if hasTag { return .cache }
        return foreignName().map { .foreign(name: $0) } ?? .unmarked
    }

    var hasTag: Bool {
        guard let data = try? FileIO.read(path + "/" + Self.tagFileName, maxSize: 64 << 10, accessDate: nil) else { return false }
        return data.starts(with: Data(Self.tagSignature.utf8))
    }

    /// A name the cache could not have written, or nil. The listing stops at the first, so a
    /// large folder of someone else's files costs little on each refused write.
    private func foreignName() -> String? {
        FileIO.firstName(in: path) { name in Self.isForeign(name, status: FileIO.status(path + "/" + name)) }
    }

    /// Whether `name`, with `status` (nil: gone since the listing), is not the cache's. A name the
    /// cache writes that vanished meanwhile is another writer's temporary file just renamed, or an
    /// entry just removed: not foreign, or two processes sharing a folder would refuse each other.
    static func isForeign(_ name: String, status: FileIO.Status?) -> Bool {
        if isEntryName(name) || FileIO.isTemporaryName(name) { return status.map { !$0.isRegular } ?? false }
        if name == sidecarDirectoryName { return status.map { !$0.isDirectory } ?? false }
        return true
    }

    /// Makes sure the folder is the cache's before anything in it is written or removed: creates
    /// and marks it when missing (if `creating`), marks an unmarked one, and throws `FolderError`
    /// for anything else. Returns false when the folder is missing and was not created. Once the
    /// folder is known to be the cache's, this costs one lock.
    @discardableResult
    func claimFolder(creating: Bool) throws -> Bool {
        if state.withLock({ $0.ownsFolder }) { return true }
        switch folderState {
        case .cache:
            break
        case .missing:
            guard creating else { return false }
            try FileIO.makeDirectory(path)
            try markFolder()
        case .unmarked:
            try markFolder()
        case let other:
            throw FolderError(path: path, state: other)
        }
        state.withLock { $0.ownsFolder = true }
        return true
    }

    /// Forgets that the folder is the cache's, after a write found it gone (someone removed it).
    func releaseFolder() {
        state.withLock { $0.ownsFolder = false }
    }

    private func markFolder() throws {
        try FileIO.writeAtomically(Data(Self.tagContents.utf8), to: path + "/" + Self.tagFileName, temporaryDirectory: path, sync: false)
    }
}
