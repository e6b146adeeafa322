import Foundation
import TestSupport

extension CLIRunner {
    /// Runs the built `imagepipe` with standard error on a pseudo-terminal `columns` wide, as in a
    /// user's shell: what the tool draws only on a terminal (the progress bar) is in `stderr`, the
    /// terminal's `\r\n` line ends read back as `\n`.
    func runOnTerminal(_ arguments: [String], columns: UInt16 = 120) async throws -> Run {
        let environment = self.environment
        return try await runBlocking {
            // `/dev/ptmx` and the kernel's ioctls: glibc's posix_openpt family is hidden from Swift
            // (it needs _XOPEN_SOURCE). TIOCSPTLCK and TIOCGPTN are function-like macros, so their
            // values (the same on every Linux architecture Swift runs on) are written here.
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            guard master >= 0 else { throw POSIXError(.ENOTTY) }
            defer { close(master) }
            let (lockIoctl, numberIoctl): (UInt, UInt) = (0x4004_5431, 0x8004_5430)  // TIOCSPTLCK, TIOCGPTN
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard ioctl(master, lockIoctl, &unlock) == 0, ioctl(master, numberIoctl, &number) == 0 else {
                throw POSIXError(.ENOTTY)
            }
            var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
            guard terminal >= 0 else { throw POSIXError(.ENOTTY) }
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = arguments
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
            do {
                try process.run()
            } catch {
                close(terminal)
                throw error
            }
            close(terminal)
            // The terminal's side reads until the child's last descriptor on it closes (EIO).
            let errData = Locked(Data())
            let errReader = Thread {
                var collected = Data()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(master, &buffer, buffer.count)
                    if count <= 0 { break }
                    collected.append(contentsOf: buffer[0..<count])
                }
                errData.set(collected)
            }
            errReader.start()
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            while !errData.isSet { usleep(1000) }
            let stderr = String(decoding: errData.value, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: stderr)
        }
    }
}
