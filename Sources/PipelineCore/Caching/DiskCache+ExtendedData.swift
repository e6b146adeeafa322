import Foundation

extension DiskCache {
    /// SDWebImage keeps extended data in an xattr named after its cache; ours, in the `user.`
    /// namespace that unprivileged processes may write.
    static let extendedAttributeName = "user.imagepipe"
    /// Extended data is for small per-entry facts (headers, an ETag), not payloads.
    public static let maxExtendedDataSize = 1 << 20

    /// Where extended data goes when the file system refuses xattrs (tmpfs without `user_xattr`,
    /// some network mounts) or the value is too large for one: a hidden folder, so scans of entries
    /// never see it.
    var sidecarDirectory: String { path + "/.extended" }

    func sidecarPath(forFileAt file: String) -> String {
        sidecarDirectory + "/" + (file as NSString).lastPathComponent
    }

    /// The extended data stored with `key`'s entry, or nil.
    public func extendedData(forKey key: String) -> Data? {
        for candidate in candidatePaths(forKey: key) where FileIO.status(candidate)?.isRegular == true {
            if let data = FileIO.attribute(Self.extendedAttributeName, path: candidate, maxSize: Self.maxExtendedDataSize) {
                return data
            }
            return try? FileIO.read(sidecarPath(forFileAt: candidate), maxSize: Self.maxExtendedDataSize, accessDate: nil)
        }
        return nil
    }

    /// Attaches (or with nil, removes) extended data on `key`'s existing entry; does nothing when
    /// there is no entry.
    public func setExtendedData(_ data: Data?, forKey key: String) throws {
        guard let file = candidatePaths(forKey: key).first(where: { FileIO.status($0)?.isRegular == true }) else { return }
        guard let data else {
            FileIO.removeAttribute(Self.extendedAttributeName, path: file)
            FileIO.remove(sidecarPath(forFileAt: file))
            return
        }
        let attached = data.count <= Self.maxExtendedDataSize
            && FileIO.setAttribute(Self.extendedAttributeName, data, path: file)
        try storeSidecar(data, forFileAt: file, attached: attached)
    }

    /// Keeps the sidecar in step with a write: removed when the data went into the xattr (or there
    /// is none), else written atomically like an entry.
    func storeSidecar(_ data: Data?, forFileAt file: String, attached: Bool) throws {
        let sidecar = sidecarPath(forFileAt: file)
        guard let data, !attached else {
            FileIO.remove(sidecar)
            return
        }
        guard data.count <= Self.maxExtendedDataSize else {
            FileIO.remove(sidecar)
            throw FileIO.Failure(call: "setExtendedData", code: EFBIG)
        }
        do {
            try FileIO.writeAtomically(data, to: sidecar, temporaryDirectory: sidecarDirectory, sync: configuration.syncWrites)
        } catch let failure as FileIO.Failure where failure.code == ENOENT {
            try FileIO.makeDirectory(sidecarDirectory)
            try FileIO.writeAtomically(data, to: sidecar, temporaryDirectory: sidecarDirectory, sync: configuration.syncWrites)
        }
    }
}
