@testable import CacheRedis
import Foundation
import PipelineConformance
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway `redis-server` on a free loopback port, no persistence, in a temporary directory;
/// killed when the test is done. `nutcracker` variants put twemproxy in front of servers.
final class RedisTestServer: @unchecked Sendable {
    static let serverPath = "/usr/bin/redis-server"
    static let nutcrackerPath = "/usr/sbin/nutcracker"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: serverPath) }
    static var hasNutcracker: Bool { FileManager.default.isExecutableFile(atPath: nutcrackerPath) }

    let port: UInt16
    let directory: URL
    private let arguments: [String]
    private let executable: String
    private var process: Process?

    /// A redis-server; `extra` adds settings such as `--requirepass`.
    convenience init(extra: [String] = []) throws {
        let port = TestProcesses.freePort()
        try self.init(executable: Self.serverPath, port: port) { directory in
            ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path] + extra
        }
    }

    /// twemproxy on a free port spreading keys over `servers` by ketama over murmur hashes (its fnv1a_64 sent every key with one long
    /// prefix to one shard).
    static func nutcracker(over servers: [RedisTestServer]) throws -> RedisTestServer {
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
                  timeout: 400
                  servers:
                \(servers.enumerated().map { "    - 127.0.0.1:\($0.element.port):1 shard\($0.offset)" }.joined(separator: "\n"))

                """
            let file = directory.appendingPathComponent("nutcracker.yml")
            try? config.write(to: file, atomically: true, encoding: .utf8)
            return ["-c", file.path, "-s", "\(statsPort)", "-a", "127.0.0.1", "-o", directory.appendingPathComponent("log").path,
                    "-p", directory.appendingPathComponent("pid").path]
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

    var configuration: RedisCacheConfiguration {
        var configuration = RedisCacheConfiguration(host: "127.0.0.1", port: Int(port))
        configuration.keyPrefix = "test-\(UUID().uuidString):"
        configuration.breakerCooldown = .milliseconds(100)
        configuration.commandTimeout = .milliseconds(300)
        configuration.connectTimeout = .milliseconds(300)
        return configuration
    }

    /// (Re)starts the server on the same port.
    func start() throws {
        process = try TestProcesses.launchServer(executable, arguments, directory: directory, port: port)
    }

    /// Kills the server outright, as a crash would.
    func stop() {
        guard let process else { return }
        TestProcesses.killAndWait(process)
        self.process = nil
    }

    /// Sends one command on a connection of its own (setup and fault injection), waiting up to 10 s.
    @discardableResult
    func command(_ arguments: [String]) throws -> RedisReply {
        var configuration = configuration
        configuration.commandTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
        return try RedisConnection(configuration: configuration).command(arguments)
    }
}
