import Foundation
import PipelineCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads one regular file into a single buffer sized from `fstat`, so a large file costs its size
/// once (no growing buffer, no second copy, no zero-fill), in chunks so progress and cancellation
/// work. Given a `FirstFrameLoad`, it reads the file's beginning in growing pieces and stops where
/// the first frame ends: the pages of the buffer past that point are never touched.
enum FileReader {
    /// The reason given for a missing file; `FileLoader` blocks such URLs (see there).
    static let missingReason = "no such file or directory"
    /// The first piece read for a first-frame load; each further piece doubles what was read.
    static let firstFrameProbe = 64 << 10

    /// The bytes read, and whether they are the file's beginning only (`ImageLoadResult.isPrefix`).
    struct Reading {
        var data: Data
        var isPrefix: Bool
    }

    static func read(
        path: String, maxBytes: Int64, chunkSize: Int, firstFrame: FirstFrameLoad? = nil,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws(ImagePipeError) -> Reading {
        let (fd, info) = try openRegularFile(path)
        defer { close(fd) }
        let size = Int64(info.st_size)
        guard size <= maxBytes else {
            throw .limitExceeded(.fileSize, value: Int(clamping: size), maximum: Int(clamping: maxBytes))
        }
        // Uninitialised memory handed to Data without a copy: `Data(count:)` zero-fills, which
        // writes every page twice and, for a block glibc maps afresh, faults each one in per file.
        let count = Int(size)
        guard let buffer = malloc(max(count, 1)) else { throw failure(path, ENOMEM) }
        var received = 0
        // Where reading stops for now: the whole file, or the piece a first-frame load asks about.
        var target = firstFrame == nil ? count : min(count, firstFrameProbe)
        var asking = firstFrame != nil
        var stoppedEarly = false
        do throws(ImagePipeError) {
            progress?(ImageLoadProgress(receivedBytes: 0, expectedBytes: size))
            reading: while received < count {
                if received == target {
                    // Only a first-frame load stops short of the end: ask whether its frame is in.
                    guard asking, let firstFrame else {
                        stoppedEarly = true
                        break reading
                    }
                    // Borrowed for the call only (`ImageCoder.firstFrameExtent` keeps nothing).
                    switch firstFrame.extent(of: Data(bytesNoCopy: buffer, count: received, deallocator: .none)) {
                    case .endsAt(let end):
                        target = min(count, max(end, received))
                        asking = false
                    case .needsMoreBytes:
                        target = min(count, received * 2)
                    case .unknown:
                        target = count
                        asking = false
                    }
                    continue reading
                }
                if Task.isCancelled { throw .cancelled }
                let got = Glibc.read(fd, buffer + received, min(chunkSize, target - received))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, errno)
                }
                if got == 0 { break reading }  // The file shrank while we read it: keep what is there.
                received += got
                progress?(ImageLoadProgress(receivedBytes: Int64(received), expectedBytes: size))
                await Task.yield()
            }
        } catch {
            free(buffer)
            throw error
        }
        if stoppedEarly {
            // The load is complete at what the first frame needs: progress ends at that total.
            progress?(ImageLoadProgress(receivedBytes: Int64(received), expectedBytes: Int64(received)))
        }
        return Reading(data: Data(bytesNoCopy: buffer, count: received, deallocator: .free), isPrefix: stoppedEarly)
    }

    /// The reason given for a FIFO, device, socket or folder.
    static let notRegularReason = "not a regular file"

    /// Opens `path` only if it is a regular file. Devices and FIFOs have no size to trust and may
    /// never end (`/dev/zero`); opening one can block (a FIFO waits for a writer) or act (a tty
    /// becomes the controlling terminal, a watchdog starts). So the path's type is checked before
    /// opening, and the descriptor's again after (the path may have been swapped meanwhile), with
    /// `O_NONBLOCK | O_NOCTTY` so that even a swapped-in FIFO or terminal returns at once. Symlinks
    /// are followed: the path is the user's (and `FileLoader` has resolved it against its roots).
    private static func openRegularFile(_ path: String) throws(ImagePipeError) -> (fd: Int32, info: stat) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .fileSystem(path: path, reason: notRegularReason) }
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let fd = open(path, flags)
        guard fd >= 0 else { throw failure(path, errno) }
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw failure(path, code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .fileSystem(path: path, reason: notRegularReason)
        }
        // Regular files ignore O_NONBLOCK today; cleared so reads stay plain blocking reads. F_SETFL
        // takes the status flags the open set, less O_NONBLOCK: no F_GETFL needed.
        guard fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw failure(path, code)
        }
        return (fd, info)
    }

    private static func failure(_ path: String, _ code: Int32) -> ImagePipeError {
        switch code {
        case ENOENT, ENOTDIR: .fileSystem(path: path, reason: missingReason)
        case EACCES, EPERM: .fileSystem(path: path, reason: "permission denied")
        default: .fileSystem(path: path, reason: String(cString: strerror(code)))
        }
    }
}
