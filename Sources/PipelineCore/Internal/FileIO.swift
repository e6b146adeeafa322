import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The POSIX calls the disk cache needs and Foundation does not offer: exclusive create, fsync,
/// rename over, explicit access times, extended attributes. Errors come back as `errno`. The CLI's
/// output files are written through `writeAtomically` too.
package enum FileIO {
    package struct Failure: Error, CustomStringConvertible {
        package let call: String
        package let code: Int32
        package init(call: String, code: Int32) {
            self.call = call
            self.code = code
        }
        package var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// The path names a FIFO, device, socket or directory where a regular file was expected.
    package struct NotRegularFile: Error, CustomStringConvertible {
        package let path: String
        package var description: String { "\(path) is not a regular file" }
    }

    /// What one `stat` tells the disk cache.
    package struct Status {
        package var isRegular: Bool
        package var isDirectory: Bool
        package var size: Int
        /// Bytes the file occupies on disk (blocks), what a size limit really costs.
        package var allocatedSize: Int
        package var accessDate: Date
        package var modificationDate: Date
        /// When the file's metadata last changed (a write, a rename, an attribute).
        package var changeDate: Date
    }

    package static func status(_ path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(
            isRegular: (info.st_mode & S_IFMT) == S_IFREG,
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR,
            size: Int(info.st_size),
            allocatedSize: Int(info.st_blocks) * 512,
            accessDate: date(info.st_atim),
            modificationDate: date(info.st_mtim),
            changeDate: date(info.st_ctim))
    }

    private static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
    }

    private static func timespec(_ date: Date) -> timespec {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000))
    }

    /// Reads a whole file, refusing ones larger than `maxSize`, and stamps its access time with
    /// `accessDate` when the recorded one is at least `resolution` older. The stamp is explicit
    /// because `relatime`/`noatime` mounts would otherwise leave the access date stale and the trim
    /// would evict hot entries; the resolution spares a metadata write (a journal transaction on
    /// ext4) on every hit of a hot entry. Returns nil when the file does not exist.
    package static func read(_ path: String, maxSize: Int, accessDate: Date?, resolution: TimeInterval = 0) throws -> Data? {
        guard let (fd, info) = try openRegularFile(path) else { return nil }
        defer { close(fd) }
        let size = Int(info.st_size)
        guard size <= maxSize else { throw Failure(call: "read", code: EFBIG) }
        // Uninitialised memory handed to Data without a copy: zero-filling first would touch every
        // byte twice.
        guard let buffer = malloc(max(size, 1)) else { throw Failure(call: "malloc", code: ENOMEM) }
        var total = 0
        while total < size {
            let n = Glibc.read(fd, buffer + total, size - total)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                free(buffer)
                throw Failure(call: "read", code: code)
            }
            // The file is never rewritten in place (writers rename over it), so a short file means
            // it was truncated by something else: take what is there.
            if n == 0 { break }
            total += n
        }
        let data = Data(bytesNoCopy: buffer, count: total, deallocator: .free)
        if let accessDate, accessDate.timeIntervalSince(date(info.st_atim)) >= resolution {
            setTimes(fd: fd, access: accessDate, modification: nil)
        }
        return data
    }

    /// The text of a small kernel file (`/proc`, `/sys`), at most `maxSize` bytes; nil when it cannot
    /// be opened or read. Such files report a size of 0, so this reads until the end. Plain POSIX
    /// calls: Foundation's `FileHandle` sets up far more than a few reads need, on every start-up.
    package static func readSystemText(_ path: String, maxSize: Int = 64 * 1024) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < maxSize {
            let wanted = min(chunk.count, maxSize - bytes.count)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Opens `path` for reading only if it is a regular file, without following a symlink in its
    /// last component (entries are files the cache wrote; a planted link must not make a read return
    /// another file's bytes). `O_NONBLOCK` makes the open itself return at once on a FIFO (which would
    /// otherwise wait for a writer forever); the descriptor's type is checked before any read, and
    /// the flag cleared again for the regular file. Returns the descriptor and its `fstat`; nil when
    /// the file does not exist.
    ///
    /// `O_NOATIME`: the access date is ours to keep (with the cache's clock); the kernel's own
    /// relatime update would overwrite it. Only the file's owner may ask, so it falls back without.
    private static func openRegularFile(_ path: String) throws -> (fd: Int32, info: stat)? {
        var flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | oNoAtime
        var fd = open(path, flags)
        if fd < 0, errno == EPERM {
            flags &= ~oNoAtime
            fd = open(path, flags)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            // ELOOP: the last component is a symlink.
            if code == ELOOP { throw NotRegularFile(path: path) }
            throw Failure(call: "open", code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "fstat", code: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw NotRegularFile(path: path)
        }
        // F_SETFL takes the status flags the open set, less O_NONBLOCK (O_NOATIME stays).
        guard fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "fcntl", code: code)
        }
        return (fd, info)
    }

    /// Sets a file's access and modification times.
    package static func setTimes(fd: Int32, access: Date, modification: Date?) {
        var times = [timespec(access), modification.map(timespec) ?? Glibc.timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        _ = futimens(fd, &times)
    }

    /// Writes `data` to a new file in `directory` and renames it over `path`, so a reader sees
    /// either the old file or the whole new one, never a part. A crash leaves at worst a stray
    /// temporary file (hidden, removed later by `DiskCache.removeExpiredAndTrim`).
    /// - Parameters:
    ///   - sync: fsync the file before the rename, so a power loss cannot leave an empty file under
    ///     the final name (on ext4 with `data=ordered`, or XFS, rename without fsync may).
    ///   - permissions: the new file's mode, before the process's umask.
    ///   - beforeRename: runs on the open temporary file (to attach extended attributes atomically).
    package static func writeAtomically(
        _ data: Data, to path: String, temporaryDirectory directory: String, sync: Bool,
        permissions: mode_t = 0o644, beforeRename: ((Int32) -> Void)? = nil
    ) throws {
        let temporary = try writeTemporaryFile(data, in: directory, sync: sync, permissions: permissions, beforeClose: beforeRename)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(call: "rename", code: code)
        }
    }

    /// Writes `data` to a new file in `directory` and gives it the name `path` only if nothing has
    /// that name yet, so the file appears whole and never replaces another: a hard link from the
    /// temporary name, which fails when the name is taken. On a file system without hard links the
    /// name is claimed with an empty `O_EXCL` file and the data renamed over it (a rename over an
    /// existing file makes ext4 write the data out at once, which the link avoids). False, and
    /// nothing left behind, when `path` exists. Not fsynced.
    package static func writeExclusively(
        _ data: Data, to path: String, temporaryDirectory directory: String,
        permissions: mode_t
    ) throws -> Bool {
        let temporary = try writeTemporaryFile(data, in: directory, sync: false, permissions: permissions, beforeClose: nil)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        if link(temporary, path) == 0 { return true }
        switch errno {
        case EEXIST: return false
        // No hard links here (FAT, some network and FUSE file systems).
        case EPERM, EOPNOTSUPP, EMLINK, ENOSYS: break
        case let code: throw Failure(call: "link", code: code)
        }
        let claim = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard claim >= 0 else {
            if errno == EEXIST { return false }
            throw Failure(call: "open", code: errno)
        }
        close(claim)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(path)
            throw Failure(call: "rename", code: code)
        }
        renamed = true
        return true
    }

    /// A new hidden file in `directory` holding `data`, closed; its path. Removed again on failure.
    /// `beforeClose` runs on the open file (to attach extended attributes before it is published).
    private static func writeTemporaryFile(
        _ data: Data, in directory: String, sync: Bool, permissions: mode_t,
        beforeClose: ((Int32) -> Void)?
    ) throws -> String {
        let temporary = directory + "/" + temporaryName()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw Failure(call: "open", code: errno) }
        var closed = false
        var complete = false
        defer {
            if !closed { close(fd) }
            if !complete { unlink(temporary) }
        }
        try data.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let n = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(call: "write", code: errno)
                }
                written += n
            }
        }
        beforeClose?(fd)
        if sync, fsync(fd) != 0 { throw Failure(call: "fsync", code: errno) }
        closed = true
        guard close(fd) == 0 else { throw Failure(call: "close", code: errno) }
        complete = true
        return temporary
    }

    /// Temporary files start with a dot so directory scans (which skip hidden files, as
    /// SDWebImage's do) never count or serve them.
    package static let temporaryPrefix = ".tmp-"

    /// `.tmp-PID-RANDOM`: unique across processes and calls, and recognisable afterwards, so only
    /// leftovers of this naming are ever swept.
    package static func temporaryName() -> String {
        temporaryPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Whether `temporaryName()` can give `name`.
    package static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix(temporaryPrefix) else { return false }
        let parts = name.dropFirst(temporaryPrefix.count).split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 20 && part.utf8.allSatisfy { (0x30...0x39).contains($0) }
            }
    }

    /// Removes a file; true when it existed.
    @discardableResult
    package static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// `O_NOATIME` from <fcntl.h> (Linux, all architectures Swift supports), which the Glibc module
    /// leaves out because it is a GNU extension.
    private static let oNoAtime: Int32 = 0o1000000

    /// `UTIME_OMIT` from <sys/stat.h>, which the Glibc module does not export: leave that time alone.
    private static let utimeOmit = (1 << 30) - 2

    package static func setAttribute(_ name: String, _ value: Data, fd: Int32) -> Bool {
        guard let call = XAttr.fset else { return false }
        return value.withUnsafeBytes { call(fd, name, $0.baseAddress, $0.count, 0) == 0 }
    }

    package static func setAttribute(_ name: String, _ value: Data, path: String) -> Bool {
        guard let call = XAttr.set else { return false }
        return value.withUnsafeBytes { call(path, name, $0.baseAddress, $0.count, 0) == 0 }
    }

    package static func removeAttribute(_ name: String, path: String) {
        _ = XAttr.remove?(path, name)
    }

    /// The attribute's bytes; nil when absent, unsupported or larger than `maxSize`.
    package static func attribute(_ name: String, path: String, maxSize: Int) -> Data? {
        guard let call = XAttr.get else { return nil }
        let size = call(path, name, nil, 0)
        guard size >= 0, size <= maxSize else { return nil }
        guard size > 0 else { return Data() }
        var data = Data(count: size)
        let read = data.withUnsafeMutableBytes { call(path, name, $0.baseAddress, size) }
        guard read >= 0 else { return nil }
        if read < size { data.removeSubrange(read...) }
        return data
    }

    /// Names of the entries in `directory` (no `.` and `..`); empty when it does not exist.
    package static func contents(of directory: String) -> [String] {
        var names: [String] = []
        _ = firstName(in: directory) {
            names.append($0)
            return false
        }
        return names
    }

    /// The first name in `directory` (in the order the file system lists them, no `.` and `..`)
    /// for which `matches` holds; the listing stops there. Nil when none does or the directory
    /// does not exist.
    package static func firstName(in directory: String, where matches: (String) -> Bool) -> String? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != "..", matches(name) { return name }
        }
        return nil
    }

    /// Calls `body` with each name in `directory` as bytes (no `.` and `..`), without making a
    /// string of each: a cache folder may hold a million names.
    package static func forEachName(in directory: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let length = strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
                let name = UnsafeRawBufferPointer(rebasing: raw[0..<length])
                if name.count == 1 && name[0] == 0x2E || name.count == 2 && name[0] == 0x2E && name[1] == 0x2E { return }
                body(name)
            }
        }
    }

    package static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}
