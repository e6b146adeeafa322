import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway `redis-server` on a free loopback port, no persistence, in a temporary directory;
/// killed when the test is done. `nutcracker` variants put twemproxy in front of servers.
public final class RedisTestServer: @unchecked Sendable {
    public static let serverPath = "/usr/bin/redis-server"
    public static let nutcrackerPath = "/usr/sbin/nutcracker"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: serverPath) }
    public static var hasNutcracker: Bool { FileManager.default.isExecutableFile(atPath: nutcrackerPath) }

    public let port: UInt16
    public let directory: URL
    private let arguments: [String]
    private let executable: String
    private var process: Process?

    /// A redis-server; `extra` adds settings such as `--requirepass`.
    public convenience init(extra: [String] = []) throws {
        let port = TestProcesses.freePort()
        try self.init(executable: Self.serverPath, port: port) { directory in
            ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path] + extra
        }
    }

    /// twemproxy on a free port spreading keys over `servers` by ketama over murmur hashes (its
    /// fnv1a_64 sent every key with one long prefix to one shard). Its own timeout towards the
    /// servers is long, so a loaded machine does not turn into proxy errors.
    public static func nutcracker(over servers: [RedisTestServer]) throws -> RedisTestServer {
        let port = TestProcesses.freePort()
        let statsPort = TestProcesses.freePort()
        return try RedisTestServer(executable: nutcrackerPath, port: port) { directory in
            let config = """
                pool:
                  listen: 127.0.0.1:\(port)
                  hash: murmur
                  distribution: ketama
                  redis: true
                  auto_eject_hosts: false
                  timeout: 10000
                  servers:
                \(servers.enumerated().map { "    - 127.0.0.1:\($0.element.port):1 shard\($0.offset)" }.joined(separator: "\n"))

                """
            let file = directory.appendingPathComponent("nutcracker.yml")
            try? config.write(to: file, atomically: true, encoding: .utf8)
            return [
                "-c", file.path, "-s", "\(statsPort)", "-a", "127.0.0.1", "-o", directory.appendingPathComponent("log").path,
                "-p", directory.appendingPathComponent("pid").path,
            ]
        }
    }

    private init(executable: String, port: UInt16, arguments: (URL) -> [String]) throws {
        self.executable = executable
        self.port = port
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.arguments = arguments(directory)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://127.0.0.1:port/database`, as `--redis` takes it.
    public func url(database: Int = 0) -> String { "redis://127.0.0.1:\(port)/\(database)" }

    /// (Re)starts the server on the same port.
    public func start() throws {
        process = try TestProcesses.launchServer(executable, arguments, directory: directory, port: port)
    }

    /// Kills the server outright, as a crash would.
    public func stop() {
        guard let process else { return }
        TestProcesses.killAndWait(process)
        self.process = nil
    }
}
