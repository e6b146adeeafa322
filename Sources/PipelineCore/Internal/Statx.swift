import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's creation ("birth") date through `statx(2)`, looked up at run time like `XAttr`: the
/// Glibc module leaves `statx` out (it is a GNU extension), and a C shim for one call would give
/// PipelineCore a C dependency. The kernel's `struct statx` layout is fixed ABI.
package enum Statx {
    private typealias Call = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32

    private static let call: Call? = dlsym(nil, "statx").map { unsafeBitCast($0, to: Call.self) }
    private static let structSize = 256
    private static let birthTimeMask: UInt32 = 0x800  // STATX_BTIME
    private static let birthTimeOffset = 80  // stx_btime: { Int64 seconds, UInt32 nanoseconds, pad }
    private static let noFollow: Int32 = 0x100  // AT_SYMLINK_NOFOLLOW
    private static let currentDirectory: Int32 = -100  // AT_FDCWD

    /// When `path` (not followed if a symlink) was created; nil when the C library or the file
    /// system does not say.
    package static func creationDate(_ path: String) -> Date? {
        guard let call else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: structSize, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: structSize)
        guard call(currentDirectory, path, noFollow, birthTimeMask, buffer) == 0,
            buffer.load(as: UInt32.self) & birthTimeMask != 0
        else { return nil }
        let seconds = buffer.load(fromByteOffset: birthTimeOffset, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: birthTimeOffset + 8, as: UInt32.self)
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }
}
