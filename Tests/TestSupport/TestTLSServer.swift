import Foundation
import PipelineConformance
#if canImport(Glibc)
import Glibc
#endif

/// A self-signed HTTPS endpoint on 127.0.0.1: `openssl s_server -WWW` serving one directory,
/// with a throwaway certificate for `IP:127.0.0.1` that tests can also use as a CA bundle.
public final class TestTLSServer: @unchecked Sendable {
    public let port: UInt16
    public let directory: URL
    public let certificatePath: String
    private let process: Process

    /// Fails (so the caller can skip with the reason) when `openssl` is missing or does not start.
    public init(files: [String: Data]) throws {
        let openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: openssl) else {
            throw TestServerError.process("openssl is not installed (apt-get install openssl)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: directory.appendingPathComponent(name)) }
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let keyPath = directory.appendingPathComponent("key.pem").path
        try TestProcesses.run(openssl, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certificatePath,
        ])
        port = TestProcesses.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificatePath, "-key", keyPath, "-WWW", "-quiet"]
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard Self.waitForListener(port: port) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestServerError.process("openssl s_server did not start listening on \(port)")
        }
    }

    deinit { stop() }

    public func url(_ name: String) -> URL { URL(string: "https://127.0.0.1:\(port)/\(name)")! }

    public func stop() {
        if process.isRunning {
            // s_server ignores SIGTERM while it waits in accept, so it is killed outright.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func waitForListener(port: UInt16) -> Bool {
        for _ in 0..<100 {
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
            usleep(50_000)
        }
        return false
    }
}
