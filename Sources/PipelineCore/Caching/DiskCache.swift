import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Encoded image bytes on disk, one file per key (SDWebImage's `SDDiskCache`).
///
/// - Names: `fileName(forKey:)`, MD5 of the key plus the URL path's extension, so the layout is
///   SDWebImage's and no key can escape the directory.
/// - The folder is the cache's alone: it is marked with a `CACHEDIR.TAG`, a folder holding other
///   files is never written, trimmed or cleared, and only names the cache writes are ever read,
///   counted or removed (see `DiskCache+Folder.swift`).
/// - Writes are atomic: a hidden temporary file in the same directory, renamed over the entry. A
///   reader — in this process or another — sees the old bytes or the new ones, never a part, and a
///   writer killed mid-write leaves only a hidden temporary file that `removeExpiredAndTrim` sweeps.
/// - fsync: off by default. A cache entry can be fetched again, and the one failure a power loss
///   can cause without it (an entry that is empty or zero-filled) decodes as corrupt, which the image
///   cache treats as a miss and removes. `Configuration.syncWrites` turns it on.
/// - Expiry by access date (SDWebImage's default), and a size limit trimmed oldest-access-first down
///   to half the limit, both applied while the program runs: after a write that takes the cache past
///   its limit, and on a periodic timer — not only when asked.
/// - The access date is the cache's own: reads open with `O_NOATIME` and stamp it explicitly (at
///   most once per `accessDateResolution`), so `noatime`/`relatime` mounts change nothing and an
///   injected clock is honoured.
///
/// Every call does blocking file I/O; call it from a thread that may block, not the cooperative
/// pool's (the default image cache uses its own dispatch queue).
public final class DiskCache: Sendable {
    public struct Configuration: Sendable {
        /// Entries not read or written for this long are removed; nil keeps them, 0 expires all.
        /// Default one week, as SDWebImage.
        public var maxAge: TimeInterval?
        /// Bytes on disk past which the cache trims, oldest access first, to half of it; 0 for no
        /// limit. Default 1 GiB: SDWebImage's "unlimited" default is how caches fill disks.
        public var sizeLimit: Int
        /// Files larger than this are not read (they are not ours, or the disk is lying).
        public var maxEntrySize: Int
        /// How often the cache removes expired entries and trims on its own; nil turns the timer off.
        public var trimInterval: TimeInterval?
        /// fsync each entry before renaming it into place (see the type's notes).
        public var syncWrites: Bool
        /// A hit restamps the access date only when it is at least this much older: a hot entry is
        /// not worth a metadata write per read, and a minute is nothing next to a week's expiry.
        public var accessDateResolution: TimeInterval
        /// Where access dates and expiry read the time (tests set their own).
        var clock: CacheClock = .system
        /// Where the cache, and the image cache around it, report what they cannot do but carry on
        /// without: a store that failed (disk full, a read-only folder, a folder that is not a
        /// cache) is a warning with the key in `cache.key`. Silent by default.
        public var logger: Logger
        /// Where the image cache around this one counts dropped stores and times its decodes and
        /// encodes (see `PipelineMetrics`).
        public var metrics: PipelineMetrics

        public init(
            maxAge: TimeInterval? = 7 * 24 * 3600,
            sizeLimit: Int = 1 << 30,
            maxEntrySize: Int = 256 << 20,
            trimInterval: TimeInterval? = 300,
            syncWrites: Bool = false,
            accessDateResolution: TimeInterval = 60,
            logger: Logger = Logger(label: "imagepipe.disk-cache", factory: { _ in SwiftLogNoOpLogHandler() }),
            metrics: PipelineMetrics = .system
        ) {
            self.maxAge = maxAge
            self.sizeLimit = sizeLimit
            self.maxEntrySize = maxEntrySize
            self.trimInterval = trimInterval
            self.syncWrites = syncWrites
            self.accessDateResolution = accessDateResolution
            self.logger = logger
            self.metrics = metrics
        }

        /// The same, reading the time from `clock`.
        init(
            maxAge: TimeInterval? = 7 * 24 * 3600, sizeLimit: Int = 1 << 30, maxEntrySize: Int = 256 << 20,
            trimInterval: TimeInterval? = 300, syncWrites: Bool = false, accessDateResolution: TimeInterval = 60,
            clock: CacheClock
        ) {
            self.init(maxAge: maxAge, sizeLimit: sizeLimit, maxEntrySize: maxEntrySize, trimInterval: trimInterval,
                      syncWrites: syncWrites, accessDateResolution: accessDateResolution)
            self.clock = clock
        }
    }

    struct State {
        /// Bytes on disk as of the last scan plus what this process wrote since; nil until the first
        /// write needs it. Other processes' writes are seen at the next scan.
        var approximateSize: Int?
        var isTrimming = false
        var timer: Task<Void, Never>?
        /// The folder was found or made to be the cache's (see `claimFolder`).
        var ownsFolder = false
    }

    public let directory: URL
    public let configuration: Configuration
    let path: String
    let state = Mutex(State())
    /// Files read, for tests of read coalescing.
    let readCount = Atomic<Int>(0)
    /// Names are a pure function of keys, but computing one (URL parsing, MD5) costs more than
    /// reading a small warm file; hot keys keep theirs here.
    private let names = MemoryCache<String, FileName>(costLimit: .max, countLimit: 4096)

    struct FileName: Sendable {
        /// MD5 hex alone, the name older layouts used.
        let hash: String
        /// With the extension, when the key has one.
        let name: String
    }

    /// Uses `directory` (created on first write). Starts the trim timer when the configuration asks.
    public init(directory: URL, configuration: Configuration = Configuration()) {
        self.directory = directory.standardizedFileURL
        self.configuration = configuration
        var path = self.directory.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.path = path
        if let interval = configuration.trimInterval, interval > 0 {
            startTimer(interval: interval)
        }
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    func cachedFileName(forKey key: String) -> FileName {
        if let known = names.value(forKey: key) { return known }
        let hash = MD5.hex(key)
        let name = FileName(hash: hash, name: Self.fileExtension(forKey: key).map { hash + "." + $0 } ?? hash)
        names.set(name, forKey: key)
        return name
    }

    /// The path of `key`'s file (which may not exist).
    public func filePath(forKey key: String) -> String { path + "/" + cachedFileName(forKey: key).name }

    /// SDWebImage also looks for the name without extension, which older versions wrote.
    func candidatePaths(forKey key: String) -> [String] {
        let file = cachedFileName(forKey: key)
        return file.name == file.hash ? [path + "/" + file.name] : [path + "/" + file.name, path + "/" + file.hash]
    }

    // MARK: Entries

    /// The bytes stored for `key`, or nil. A hit updates the entry's access date.
    public func data(forKey key: String) -> Data? {
        readCount.add(1, ordering: .relaxed)
        let now = configuration.clock.now()
        for candidate in candidatePaths(forKey: key) {
            if let data = try? FileIO.read(
                candidate, maxSize: configuration.maxEntrySize, accessDate: now, resolution: configuration.accessDateResolution) {
                return data
            }
        }
        return nil
    }

    /// Stores `data` for `key`, replacing any entry, with optional extended data (see
    /// `extendedData(forKey:)`). Trims the cache when this write takes it past its size limit.
    public func setData(_ data: Data, forKey key: String, extendedData: Data? = nil) throws {
        let target = filePath(forKey: key)
        let now = configuration.clock.now()
        var attached = false
        let write = {
            try FileIO.writeAtomically(data, to: target, temporaryDirectory: self.path, sync: self.configuration.syncWrites) { fd in
                // Stamped with the cache's clock so expiry and trims compare like with like.
                FileIO.setTimes(fd: fd, access: now, modification: now)
                if let extendedData { attached = FileIO.setAttribute(Self.extendedAttributeName, extendedData, fd: fd) }
            }
        }
        try claimFolder(creating: true)
        do {
            try write()
        } catch let failure as FileIO.Failure where failure.code == ENOENT {
            // Someone removed the folder since it was claimed: make it again, marked.
            releaseFolder()
            try claimFolder(creating: true)
            try write()
        }
        try storeSidecar(extendedData, forFileAt: target, attached: attached)
        noteWritten(bytes: data.count)
    }

    public func containsData(forKey key: String) -> Bool {
        candidatePaths(forKey: key).contains { FileIO.status($0)?.isRegular == true }
    }

    public func removeData(forKey key: String) {
        for candidate in candidatePaths(forKey: key) {
            removeEntry(at: candidate)
        }
    }

    /// Removes every entry and its extended data, leaving every other file alone (the folder stays,
    /// so writers in other processes keep working). Does nothing in a folder that is not the
    /// cache's (see `folderState`).
    public func removeAll() {
        do {
            guard try claimFolder(creating: false) else { return }
        } catch {
            configuration.logger.debug("not clearing the disk cache", metadata: ["cache.directory": "\(path)", "error": "\(error)"])
            return
        }
        for entry in entries() { removeEntry(at: entry.path) }
        for name in sidecarNames() { removeRegularFile(sidecarDirectory + "/" + name) }
        state.withLock { $0.approximateSize = 0 }
    }

    /// Removes an entry and its sidecar; a file under an entry's name that the cache cannot have
    /// written (a symlink, a FIFO, a folder) is left alone.
    func removeEntry(at file: String) {
        removeRegularFile(file)
        removeSidecar(forFileAt: file)
    }

    func removeRegularFile(_ file: String) {
        if FileIO.status(file)?.isRegular == true { FileIO.remove(file) }
    }

    /// The entries: regular files under names the cache writes.
    func entries() -> [(path: String, status: FileIO.Status)] {
        FileIO.contents(of: path).compactMap { name in
            guard Self.isEntryName(name) else { return nil }
            let file = path + "/" + name
            guard let status = FileIO.status(file), status.isRegular else { return nil }
            return (file, status)
        }
    }

    /// Sum of the entries' sizes in bytes (logical size, as SDWebImage reports).
    public var totalSize: Int { entries().reduce(0) { $0 + $1.status.size } }

    public var totalCount: Int { entries().count }
}
