import Foundation

extension DiskCache {
    /// A temporary file this old belongs to a writer that died; younger ones may still be written.
    static let staleTemporaryFileAge: TimeInterval = 3600

    /// SDWebImage's `removeExpiredData`: removes entries last accessed at least `maxAge` ago, then,
    /// when the rest exceed the size limit, the least recently accessed until they are below half of
    /// it (hysteresis, so a full cache is not trimmed on every write). Also sweeps temporary files
    /// of dead writers and sidecars whose entry is gone. Does nothing in a folder that is not the
    /// cache's (see `folderState`).
    public func removeExpiredAndTrim() {
        do {
            guard try claimFolder(creating: false) else { return }
        } catch {
            configuration.logger.debug("not trimming the disk cache", metadata: ["cache.directory": "\(path)", "error": "\(error)"])
            return
        }
        let now = configuration.clock.now()
        var survivors: [(path: String, status: FileIO.Status)] = []
        for entry in entries() {
            if let maxAge = configuration.maxAge, entry.status.accessDate <= now.addingTimeInterval(-maxAge) {
                removeEntry(at: entry.path)
            } else {
                survivors.append(entry)
            }
        }
        var total = survivors.reduce(0) { $0 + $1.status.allocatedSize }
        let limit = configuration.sizeLimit
        if limit > 0, total > limit {
            survivors.sort { $0.status.accessDate < $1.status.accessDate }
            for entry in survivors {
                guard total >= limit / 2 else { break }
                removeEntry(at: entry.path)
                total -= entry.status.allocatedSize
            }
        }
        state.withLock { $0.approximateSize = total }
        sweepLeftovers(now: now)
    }

    private func sweepLeftovers(now: Date) {
        // Only the real clock tells whether another writer may still be busy with a temporary file.
        let staleBefore = Date().addingTimeInterval(-Self.staleTemporaryFileAge)
        let sidecarFolder = sidecarDirectoryIsReal ? [sidecarDirectory] : []
        for folder in [path] + sidecarFolder {
            for name in FileIO.contents(of: folder) where FileIO.isTemporaryName(name) {
                let file = folder + "/" + name
                if let status = FileIO.status(file), status.isRegular, status.modificationDate < staleBefore { FileIO.remove(file) }
            }
        }
        for name in sidecarNames() where FileIO.status(path + "/" + name) == nil {
            removeRegularFile(sidecarDirectory + "/" + name)
        }
    }

    /// Counts a write toward the size limit and trims when it is crossed. One trim runs at a time;
    /// writes that cross the limit meanwhile leave it to the running one.
    func noteWritten(bytes: Int) {
        let limit = configuration.sizeLimit
        guard limit > 0 else { return }
        // Files occupy whole blocks; 4 KiB is what ext4 and XFS use.
        let allocated = (bytes + 4095) / 4096 * 4096
        let known = state.withLock { state -> Int? in
            state.approximateSize.map { state.approximateSize = $0 + allocated }
            return state.approximateSize
        }
        let size = known ?? scannedSize()
        guard size > limit else { return }
        let claimed = state.withLock { state -> Bool in
            guard !state.isTrimming else { return false }
            state.isTrimming = true
            return true
        }
        guard claimed else { return }
        defer { state.withLock { $0.isTrimming = false } }
        removeExpiredAndTrim()
    }

    private func scannedSize() -> Int {
        let size = entries().reduce(0) { $0 + $1.status.allocatedSize }
        state.withLock { $0.approximateSize = size }
        return size
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
    public func stopTimer() {
        state.withLock {
            $0.timer?.cancel()
            $0.timer = nil
        }
    }
}
