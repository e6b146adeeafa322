import Foundation
import PipelineConformance
#if canImport(Glibc)
import Glibc
#endif

extension TestProcesses {
    /// Starts a server process with its output discarded and waits (up to 10 s) until something
    /// accepts connections on `port` at 127.0.0.1; a server that does not is killed and the call
    /// throws. The caller stops the process.
    public static func startServer(_ path: String, _ arguments: [String], port: UInt16, directory: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard waitForListener(port: port) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestServerError.process("\(path) did not start listening on \(port)")
        }
        return process
    }

    /// Whether something accepts a connection on 127.0.0.1:`port` within 10 s.
    public static func waitForListener(port: UInt16) -> Bool {
        for _ in 0..<400 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = port.bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            usleep(25_000)
        }
        return false
    }
}
