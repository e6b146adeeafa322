import Foundation
import PipelineCore

extension DiskCache {
    /// A temporary file this old belongs to a writer that died; younger ones may still be written.
    static let staleTemporaryFileAge: TimeInterval = 3600

    /// SDWebImage's `removeExpiredData`: removes entries whose `expiryDate` is at least `maxAge`
    /// old, then, when the rest exceed the size limit, the oldest until they are below half of it
    /// (hysteresis, so a full cache is not trimmed on every write). Also sweeps temporary files of
    /// dead writers and sidecars whose entry is gone. Does nothing in a folder that is not the
    /// cache's (see `folderState`).
    ///
    /// The choice comes from the index (`DiskCacheIndex`): a listing of names brings it up to date,
    /// and only files it has not seen and files about to be removed are `stat`ed. One trim runs at
    /// a time.
    public func removeExpiredAndTrim() {
        do {
            guard try claimFolder(creating: false) else { return }
        } catch {
            configuration.logger.debug("not trimming the disk cache", metadata: ["cache.directory": "\(path)", "error": "\(error)"])
            return
        }
        trimming.withLock { _ in
            let started = Date()
            let now = configuration.clock.now()
            let temporaries = updateIndex()
            var removed = 0
            if let maxAge = configuration.maxAge {
                let cutoff = now.addingTimeInterval(-maxAge).timeIntervalSince1970
                let expired = state.withLock { $0.index?.names(datedAtOrBefore: cutoff) ?? [] }
                let hasSidecars = sidecarDirectoryIsReal
                for entry in expired where removeEntry(entry.name, ifDatedAtOrBefore: cutoff, hasSidecars: hasSidecars) { removed += 1 }
            }
            let limit = configuration.sizeLimit
            if limit > 0, indexedSize > limit {
                let hasSidecars = sidecarDirectoryIsReal
                for entry in state.withLock({ $0.index?.oldestFirst() ?? [] }) {
                    guard indexedSize >= limit / 2 else { break }
                    // Kept when read or rewritten since it was indexed (in this process or another).
                    if removeEntry(entry.name, ifDatedAtOrBefore: entry.record.date + Self.dateTolerance, hasSidecars: hasSidecars) {
                        removed += 1
                    }
                }
            }
            sweepLeftovers(temporaries: temporaries)
            trimCount.add(1, ordering: .relaxed)
            configuration.logger.debug(
                "trimmed the disk cache",
                metadata: [
                    "cache.directory": "\(path)", "cache.removed": "\(removed)", "cache.size": "\(indexedSize)",
                    "cache.seconds": "\(Date().timeIntervalSince(started))",
                ])
        }
    }

    /// Dates the index holds came from the same file's `stat`, or from the clock this process
    /// stamped it with; nanoseconds may round differently.
    static let dateTolerance: Double = 0.001

    /// Bytes on disk as the index sees them.
    var indexedSize: Int { state.withLock { $0.index?.totalSize ?? 0 } }

    /// Brings the index up to date with one listing of the folder's names: files it does not know
    /// are `stat`ed and added, records of files gone are dropped. Builds it on first use. Returns
    /// the temporary files the listing saw.
    private func updateIndex() -> [String] {
        state.withLock { state in
            if state.index == nil { state.index = DiskCacheIndex() }
            state.index?.beginListing()
        }
        var listed: [DiskCacheIndex.Name] = []
        listed.reserveCapacity(Self.listingBatch)
        func flush() {
            let unknown = state.withLock { $0.index?.markListed(listed) ?? [] }
            listed.removeAll(keepingCapacity: true)
            let found = unknown.compactMap { name -> (DiskCacheIndex.Name, FileIO.Status, Date)? in
                let file = path + "/" + name.fileName
                guard let status = FileIO.status(file), status.isRegular else { return nil }
                return (name, status, entryDate(of: file, status: status))
            }
            guard !found.isEmpty else { return }
            state.withLock { state in
                for (name, status, date) in found where state.index?.contains(name) == false {
                    state.index?.set(name, size: status.allocatedSize, date: date)
                }
            }
        }
        var temporaries: [String] = []
        FileIO.forEachName(in: path) { name in
            if let entry = DiskCacheIndex.Name(utf8: name) {
                listed.append(entry)
                if listed.count == Self.listingBatch { flush() }
            } else if name.first == UInt8(ascii: ".") {
                let text = String(decoding: name, as: UTF8.self)
                if FileIO.isTemporaryName(text) { temporaries.append(text) }
            }
        }
        flush()
        state.withLock { $0.index?.endListing() }
        return temporaries
    }

    /// Names handed to the index per lock.
    private static let listingBatch = 4096

    /// Removes the entry when a fresh `stat` still dates it at or before `cutoff` (seconds since
    /// 1970); otherwise brings its record up to date. True when removed. `hasSidecars`: whether
    /// the sidecar folder is real (asked once per trim, not once per file).
    private func removeEntry(_ name: DiskCacheIndex.Name, ifDatedAtOrBefore cutoff: Double, hasSidecars: Bool) -> Bool {
        let file = path + "/" + name.fileName
        guard let status = FileIO.status(file), status.isRegular else {
            state.withLock { $0.index?.remove(name) }
            return false
        }
        let date = entryDate(of: file, status: status)
        if date.timeIntervalSince1970 <= cutoff {
            // The `stat` above found a regular file the cache wrote under this name.
            FileIO.remove(file)
            if hasSidecars { removeRegularFile(sidecarPath(forFileAt: file)) }
            state.withLock { $0.index?.remove(name) }
            return true
        }
        state.withLock { $0.index?.set(name, size: status.allocatedSize, date: date) }
        return false
    }

    /// The date of `file` that expiry counts from.
    func entryDate(of file: String, status: FileIO.Status) -> Date {
        switch configuration.expiryDate {
        case .access: status.accessDate
        case .modification: status.modificationDate
        case .change: status.changeDate
        case .creation: Statx.creationDate(file) ?? status.modificationDate
        }
    }

    /// Removes stale temporary files (`temporaries` from the listing of the cache's folder; the
    /// sidecar folder is listed here) and sidecars whose entry is gone.
    private func sweepLeftovers(temporaries: [String]) {
        // Only the real clock tells whether another writer may still be busy with a temporary file.
        let staleBefore = Date().addingTimeInterval(-Self.staleTemporaryFileAge)
        func removeIfStale(_ file: String) {
            if let status = FileIO.status(file), status.isRegular, status.modificationDate < staleBefore { FileIO.remove(file) }
        }
        for name in temporaries { removeIfStale(path + "/" + name) }
        guard sidecarDirectoryIsReal else { return }
        for name in FileIO.contents(of: sidecarDirectory) {
            if FileIO.isTemporaryName(name) {
                removeIfStale(sidecarDirectory + "/" + name)
            } else if Self.isEntryName(name), FileIO.status(path + "/" + name) == nil {
                removeRegularFile(sidecarDirectory + "/" + name)
            }
        }
    }

    /// Records a write in the index and trims when it takes the cache past its limit. The first
    /// write of a process builds the index (a trim). One trim runs at a time; writes that cross
    /// the limit meanwhile leave it to the running one.
    func noteWritten(file: String, bytes: Int, at now: Date) {
        let limit = configuration.sizeLimit
        guard let name = DiskCacheIndex.Name(PathText.lastPathComponent(file)),
            limit > 0 || state.withLock({ $0.index != nil })
        else { return }
        // One `stat` of the file just written gives its real size on disk and, for the kernel's
        // dates (creation, change), its date.
        let status = FileIO.status(file)
        let size = status?.allocatedSize ?? (bytes + 4095) / 4096 * 4096
        let date = status.map { entryDate(of: file, status: $0) } ?? now
        let total = state.withLock { state -> Int? in
            state.index?.set(name, size: size, date: date)
            return state.index?.totalSize
        }
        if let total, limit == 0 || total <= limit { return }
        let claimed = state.withLock { state -> Bool in
            guard !state.isTrimming else { return false }
            state.isTrimming = true
            return true
        }
        guard claimed else { return }
        defer { state.withLock { $0.isTrimming = false } }
        removeExpiredAndTrim()
    }

    func startTimer(interval: TimeInterval) {
        let task = Task.detached(priority: .background) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled, let self else { return }
                self.removeExpiredAndTrim()
            }
        }
        state.withLock { $0.timer = task }
    }

    /// Stops the periodic trim (expiry and the size limit still apply after writes).
    func stopTimer() {
        state.withLock {
            $0.timer?.cancel()
            $0.timer = nil
        }
    }
}
