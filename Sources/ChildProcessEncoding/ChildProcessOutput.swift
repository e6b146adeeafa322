import CChildProcess
import Foundation
import PipelineCore

#if canImport(Glibc)
import Glibc
#endif

/// The output of a child process that encodes for a coder whose library cannot stop inside an
/// image: read while the work's cancellation is polled, the child killed when it is set, so a
/// cancelled encode ends within milliseconds whatever the library is doing.
package enum ChildProcessOutput {
    /// How often, in milliseconds, the cancellation is asked while the child works.
    package static let pollMilliseconds: Int32 = 10

    /// The bytes and exit status of the child `start` forks (a shim's function that returns its
    /// process ID, or -1 with errno, and the pipe's read end). Throws `cancelled` once the current
    /// work's cancellation is set, the child killed; `format` names the encode in errors.
    package static func collect(format: String, _ start: (UnsafeMutablePointer<Int32>) -> Int32) throws -> (data: Data, status: Int32) {
        try DecodeCancellation.checkCurrent()
        var descriptor: Int32 = -1
        let pid = start(&descriptor)
        guard pid > 0 else { throw ImagePipeError.encodingFailed(reason: "could not start a process to encode \(format) in (errno \(errno))") }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if DecodeCancellation.isCurrentCancelled {
                ip_child_kill(pid)
                throw ImagePipeError.cancelled
            }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, pollMilliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            let count = ready < 0 ? -1 : buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                // The end of the bytes (or a broken pipe): the child's exit status says which.
                break
            }
        }
        return (data, ip_child_exit_status(pid))
    }
}
