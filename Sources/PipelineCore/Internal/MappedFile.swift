import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A regular file's bytes mapped read-only, for a pass from start to end that should not hold the
/// file: `releasePages()` drops the pages read so far from this process (they stay in the page
/// cache and fault back in if read again), so a 300 MB file read through costs a few pages of
/// resident memory, not 300 MB. Immutable; `releasePages` may be called from any thread.
package final class MappedFile: Sendable {
    /// The file's bytes; valid while this object lives.
    package let data: Data
    private let base: UInt
    private let length: Int

    /// Maps `path`; throws `FileIO.Failure` (or `FileIO.NotRegularFile`) when it cannot.
    package init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.Failure(call: "open", code: errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw FileIO.Failure(call: "fstat", code: errno) }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { throw FileIO.NotRegularFile(path: path) }
        let length = Int(status.st_size)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw FileIO.Failure(call: "mmap", code: errno)
        }
        self.base = UInt(bitPattern: mapped)
        self.length = length
        data = Data(bytesNoCopy: mapped, count: length, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// Rows a row-by-row decoder reads between two `releasePages()`: each call walks the whole
    /// mapping's page table, so not every strip.
    package static let releaseRows = 128

    /// Gives back every resident page of the mapping; reading on faults them in again.
    package func releasePages() {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: base) else { return }
        _ = madvise(pointer, length, MADV_DONTNEED)
    }
}
