import Foundation
import PipelineCore

extension DiskCache {
    /// SDWebImage keeps extended data in an xattr named after its cache; ours, in the `user.`
    /// namespace that unprivileged processes may write.
    static let extendedAttributeName = "user.imagepipe"
    /// Extended data is for small per-entry facts (headers, an ETag), not payloads.
    static let maxExtendedDataSize = 1 << 20

    /// Where extended data goes when the file system refuses xattrs (tmpfs without `user_xattr`,
    /// some network mounts) or the value is too large for one: a hidden folder, so scans of entries
    /// never see it.
    var sidecarDirectory: String { path + "/" + Self.sidecarDirectoryName }

    func sidecarPath(forFileAt file: String) -> String {
        sidecarDirectory + "/" + PathText.lastPathComponent(file)
    }

    /// The sidecar folder is used only when it is a real folder: one replaced by a symlink would
    /// lead reads, writes and removals somewhere else.
    var sidecarDirectoryIsReal: Bool { FileIO.status(sidecarDirectory)?.isDirectory == true }

    /// Names in the sidecar folder that belong to entries.
    func sidecarNames() -> [String] {
        guard sidecarDirectoryIsReal else { return [] }
        return FileIO.contents(of: sidecarDirectory).filter(Self.isEntryName)
    }

    func removeSidecar(forFileAt file: String) {
        guard sidecarDirectoryIsReal else { return }
        removeRegularFile(sidecarPath(forFileAt: file))
    }

    /// The extended data stored with `key`'s entry (the one `data(forKey:)` reads), or nil.
    public func extendedData(forKey key: String) -> Data? {
        for (candidate, _) in readablePaths(forKey: key) where FileIO.status(candidate)?.isRegular == true {
            if let data = FileIO.attribute(Self.extendedAttributeName, path: candidate, maxSize: Self.maxExtendedDataSize) {
                return data
            }
            let name = PathText.lastPathComponent(candidate)
            let folder = String(decoding: candidate.utf8.dropLast(name.utf8.count + 1), as: UTF8.self)
            let sidecars = folder + "/" + Self.sidecarDirectoryName
            guard FileIO.status(sidecars)?.isDirectory == true else { return nil }
            return try? FileIO.read(sidecars + "/" + name, maxSize: Self.maxExtendedDataSize, accessDate: nil)
        }
        return nil
    }

    /// Attaches (or with nil, removes) extended data on `key`'s existing entry; does nothing when
    /// there is no entry.
    func setExtendedData(_ data: Data?, forKey key: String) throws {
        guard let file = candidatePaths(forKey: key).first(where: { FileIO.status($0)?.isRegular == true }) else { return }
        guard let data else {
            FileIO.removeAttribute(Self.extendedAttributeName, path: file)
            removeSidecar(forFileAt: file)
            return
        }
        let attached =
            data.count <= Self.maxExtendedDataSize
            && FileIO.setAttribute(Self.extendedAttributeName, data, path: file)
        try storeSidecar(data, forFileAt: file, attached: attached)
    }

    /// Keeps the sidecar in step with a write: removed when the data went into the xattr (or there
    /// is none), else written atomically like an entry.
    func storeSidecar(_ data: Data?, forFileAt file: String, attached: Bool) throws {
        let sidecar = sidecarPath(forFileAt: file)
        guard let data, !attached else {
            removeSidecar(forFileAt: file)
            return
        }
        guard data.count <= Self.maxExtendedDataSize else {
            removeSidecar(forFileAt: file)
            throw FileIO.Failure(call: "setExtendedData", code: EFBIG)
        }
        if let status = FileIO.status(sidecarDirectory), !status.isDirectory {
            throw FileIO.Failure(call: "setExtendedData", code: ENOTDIR)
        }
        do {
            try FileIO.writeAtomically(data, to: sidecar, temporaryDirectory: sidecarDirectory, sync: configuration.syncWrites)
        } catch let failure as FileIO.Failure where failure.code == ENOENT {
            try FileIO.makeDirectory(sidecarDirectory)
            try FileIO.writeAtomically(data, to: sidecar, temporaryDirectory: sidecarDirectory, sync: configuration.syncWrites)
        }
    }
}
