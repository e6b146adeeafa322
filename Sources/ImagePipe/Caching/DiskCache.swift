import Foundation
import Logging
import PipelineCore
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
/// - Expiry by one of each entry's dates (`Configuration.expiryDate`: access by default; SDWebImage's
///   default is the modification date), and a size limit trimmed oldest-first down to half the
///   limit, both applied while the program runs: after a write that takes the cache past its limit,
///   and on a periodic timer — not only when asked. Trims work from an index of the entries, so a
///   cache of a million files is not `stat`ed file by file on each one (see `DiskCacheIndex`).
/// - The access date is the cache's own: reads open with `O_NOATIME` and stamp it explicitly (at
///   most once per `accessDateResolution`), so `noatime`/`relatime` mounts change nothing and an
///   injected clock is honoured.
/// - Read-only folders (`Configuration.additionalDirectories`, SDWebImage's
///   `additionalCachePathBlock`): lookups fall back to them; nothing there is written or removed.
///
/// Every call does blocking file I/O; call it from a thread that may block, not the cooperative
/// pool's (the default image cache uses its own dispatch queue).
public final class DiskCache: Sendable {
    /// Which of an entry's dates expiry and the size trim count from (SDWebImage's
    /// `SDImageCacheConfigExpireType`).
    public enum EntryDate: String, Sendable, CaseIterable {
        /// Last read or written: a least-recently-used cache. Reads stamp it (see the type's notes).
        case access
        /// Last written (SDWebImage's default): an entry read every minute still expires a week
        /// after it was fetched.
        case modification
        /// When the file was made: for this cache, which replaces a file on every write, the same
        /// as `modification` unless the file system keeps no creation date (then `modification`).
        case creation
        /// Last change of the file or its metadata (a write, its extended data).
        case change
    }

    public struct Configuration: Sendable {
        /// Entries whose `expiryDate` is this old are removed; nil keeps them, 0 expires all.
        /// Default one week, as SDWebImage.
        public var maxAge: TimeInterval?
        /// The date `maxAge` and the size trim count from. Default `.access`, not SDWebImage's
        /// `.modification`: with a size limit, evicting what nobody reads keeps more hits, and the
        /// cost (one metadata write per entry per `accessDateResolution`, only on a hit) is small.
        public var expiryDate: EntryDate
        /// Bytes on disk past which the cache trims, oldest first, to half of it; 0 for no
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
        /// Folders of entries written by another cache (a read-only copy shipped with a server, a
        /// shared warm cache): a lookup that misses here tries them in order, under the same file
        /// names. Nothing in them is ever written, stamped, trimmed or removed.
        public var additionalDirectories: [URL]
        /// When the source said how long its bytes stay fresh (HTTP `Cache-Control: max-age`,
        /// `Expires`), an entry past that date is a miss, and removed. Off by default, as
        /// SDWebImage: the image cache then keeps bytes by `maxAge` alone. `DefaultImageCache`
        /// stores the freshness with the entry (see `CacheValidators`).
        public var honorsSourceExpiry: Bool
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
            expiryDate: EntryDate = .access,
            sizeLimit: Int = 1 << 30,
            maxEntrySize: Int = 256 << 20,
            trimInterval: TimeInterval? = 300,
            syncWrites: Bool = false,
            accessDateResolution: TimeInterval = 60,
            additionalDirectories: [URL] = [],
            honorsSourceExpiry: Bool = false,
            logger: Logger = Logger(label: "imagepipe.disk-cache", factory: { _ in SwiftLogNoOpLogHandler() }),
            metrics: PipelineMetrics = .system
        ) {
            self.maxAge = maxAge
            self.expiryDate = expiryDate
            self.additionalDirectories = additionalDirectories
            self.honorsSourceExpiry = honorsSourceExpiry
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
            self.init(
                maxAge: maxAge, sizeLimit: sizeLimit, maxEntrySize: maxEntrySize, trimInterval: trimInterval,
                syncWrites: syncWrites, accessDateResolution: accessDateResolution)
            self.clock = clock
        }
    }

    struct State {
        /// The entries as of the last trim plus what this process wrote and removed since; nil
        /// until the first trim (or the first write that needs the size) builds it.
        var index: DiskCacheIndex?
        var isTrimming = false
        var timer: Task<Void, Never>?
        /// The folder was found or made to be the cache's (see `claimFolder`).
        var ownsFolder = false
    }

    public let directory: URL
    public let configuration: Configuration
    let path: String
    /// `configuration.additionalDirectories` as paths.
    let additionalPaths: [String]
    let state = Mutex(State())
    /// Files read, for tests of read coalescing.
    let readCount = Atomic<Int>(0)
    /// Trims run, for tests of how often writes trigger one.
    let trimCount = Atomic<Int>(0)
    /// Held by the trim that is running.
    let trimming = Mutex(())
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
        path = Self.folderPath(self.directory)
        additionalPaths = configuration.additionalDirectories.map { Self.folderPath($0.standardizedFileURL) }
        if let interval = configuration.trimInterval, interval > 0 {
            startTimer(interval: interval)
        }
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// A folder's path without trailing slashes (but `/` stays `/`).
    private static func folderPath(_ url: URL) -> String {
        var path = url.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
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
    func candidatePaths(forKey key: String, in folder: String? = nil) -> [String] {
        let folder = folder ?? path
        let file = cachedFileName(forKey: key)
        return file.name == file.hash ? [folder + "/" + file.name] : [folder + "/" + file.name, folder + "/" + file.hash]
    }

    /// Where a lookup of `key` reads: the cache's own candidates, then the additional folders'.
    func readablePaths(forKey key: String) -> [(path: String, isOwn: Bool)] {
        let own = candidatePaths(forKey: key).map { ($0, true) }
        guard !additionalPaths.isEmpty else { return own }
        return own + additionalPaths.flatMap { folder in candidatePaths(forKey: key, in: folder).map { ($0, false) } }
    }

    // MARK: Entries

    /// The bytes stored for `key` (here, else in an additional folder), or nil. A hit here updates
    /// the entry's access date when expiry counts from it.
    public func data(forKey key: String) -> Data? {
        readCount.add(1, ordering: .relaxed)
        let stamp = configuration.expiryDate == .access ? configuration.clock.now() : nil
        for (candidate, isOwn) in readablePaths(forKey: key) {
            if let data = try? FileIO.read(
                candidate, maxSize: configuration.maxEntrySize, accessDate: isOwn ? stamp : nil,
                resolution: configuration.accessDateResolution)
            {
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
        noteWritten(file: target, bytes: data.count, at: now)
    }

    /// Whether `key` has an entry here or in an additional folder.
    public func containsData(forKey key: String) -> Bool {
        readablePaths(forKey: key).contains { FileIO.status($0.path)?.isRegular == true }
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
        state.withLock { $0.index?.removeAll() }
    }

    /// Removes an entry and its sidecar; a file under an entry's name that the cache cannot have
    /// written (a symlink, a FIFO, a folder) is left alone.
    func removeEntry(at file: String) {
        removeRegularFile(file)
        removeSidecar(forFileAt: file)
        if let name = DiskCacheIndex.Name(PathText.lastPathComponent(file)) {
            state.withLock { $0.index?.remove(name) }
        }
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
