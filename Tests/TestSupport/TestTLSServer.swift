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
        try TestProcesses.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certificatePath,
            ])
        port = TestProcesses.freePort()
        process = try TestProcesses.launchServer(
            openssl,
            [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificatePath, "-key", keyPath, "-WWW", "-quiet",
            ], directory: directory, port: port)
    }

    deinit { stop() }

    public func url(_ name: String) -> URL { URL(string: "https://127.0.0.1:\(port)/\(name)")! }

    public func stop() {
        TestProcesses.killAndWait(process)
        try? FileManager.default.removeItem(at: directory)
    }
}
