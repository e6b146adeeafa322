import CodersPNG
import Foundation
import PipelineConformance
import PipelineCore
import TestSupport
import Testing
import ToolSupport

@testable import imagepipe

@Suite("imagepipe fetch --redis")
struct CLIRedisTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test(
        "A malformed --redis URL exits 1 naming the problem, never printing the password",
        arguments: [
            "redis://user:hunter2@127.0.0.1:6379", "redis://:hunter2@127.0.0.1:99999", "http://:hunter2@host",
        ])
    func malformedURL(url: String) async throws {
        let run = try await cli.run(["fetch", Samples.png, "--redis", url])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--redis: invalid Redis URL"), "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("hunter2"))
    }

    @Test(
        "A second machine (another cache folder) gets the image from Redis after the source is gone",
        .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func sharedThroughRedis() async throws {
        let server = try RedisTestServer()
        let source = temp.path("shared.png")
        try FileManager.default.copyItem(atPath: Samples.png, toPath: source)
        let url = server.url(database: 2)
        // A store may be dropped on a loaded machine (a timeout): retried until one went through Redis.
        let stored = await eventually(timeout: .seconds(30)) {
            let first = try? await cli.run(["fetch", source, "--cache-dir", temp.path("a-\(UUID().uuidString)"), "--redis", url, "--json"])
            let second = try? await cli.run(["fetch", source, "--cache-dir", temp.path("b-\(UUID().uuidString)"), "--redis", url, "--json"])
            return first?.status == 0 && second?.jsonLines.first?["cacheType"] as? String == "disk"
        }
        #expect(stored)
        try FileManager.default.removeItem(atPath: source)
        let remote = try await cli.run(["fetch", source, "--cache-dir", temp.path("c"), "--redis", url, "--json"])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.jsonLines.first?["cacheType"] as? String == "disk")
        let local = try await cli.run(["fetch", source, "--cache-dir", temp.path("d")])
        #expect(local.status != 0)
    }

    @Test(
        "Two fetch --redis processes missing the same URL at once make 1 origin request and write the same image",
        .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func concurrentFetchesShareOneOriginRequest() async throws {
        let redis = try RedisTestServer()
        let origin = try TestHTTPServer()
        let image = try PNGCoder().encode(
            Image(try PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
        // The origin answers once both processes have asked: either both asked it (no single-flight),
        // or Redis saw both try the fetch lock (`SET … NX`, the only SET before an answer).
        defer { origin.stop() }
        let asked = Counter()
        // The route keeps the port, not the server: a captured server would outlive the test, and
        // its redis-server with it.
        let redisPort = redis.port
        origin.route("/hot.png") { _, connection in
            asked.increment()
            let deadline = ContinuousClock.now + .seconds(300)
            while asked.count < 2, Self.setCalls(port: redisPort) < 2, ContinuousClock.now < deadline { usleep(5_000) }
            connection.respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"hot\""], body: image)
        }
        let arguments = ["a", "b"].map { name in
            [
                "fetch", origin.baseURL + "/hot.png", "--cache-dir", temp.path("cache-\(name)"), "-o", temp.path("out-\(name)"),
                "--redis", redis.url(), "--redis-lock-wait", "600",
            ]
        }
        let runner = cli
        async let first = runner.run(arguments[0])
        async let second = runner.run(arguments[1])
        let runs = try await [first, second]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        #expect(origin.requestCount("/hot.png") == 1)
        let written = try ["a", "b"].map { try Data(contentsOf: URL(fileURLWithPath: temp.path("out-\($0)/hot.png"))) }
        #expect(!written[0].isEmpty && written[0] == written[1])
    }

    @Test(
        "fetch --redis of a network source writes it to Redis once: the fetch lock's SET and the source's",
        .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func networkSourceIsWrittenOnce() async throws {
        let redis = try RedisTestServer()
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let image = try PNGCoder().encode(
            Image(try PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
        origin.route("/once.png") { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: image)
        }
        let port = redis.port
        let url = origin.baseURL + "/once.png"
        // A command lost to a loaded machine (the CLI's timeouts are short) is retried from scratch
        // until the source was stored and the lock was taken.
        var sets = 0, stored = false
        let deadline = ContinuousClock.now + .seconds(60)
        while !stored, ContinuousClock.now < deadline {
            _ = try Self.redisCLI(port: port, ["FLUSHALL"])
            _ = try Self.redisCLI(port: port, ["CONFIG", "RESETSTAT"])
            let run = try await cli.run(["fetch", url, "--cache-dir", temp.path("cache-\(UUID().uuidString)"), "--redis", redis.url()])
            let exists = try Self.redisCLI(port: port, ["EXISTS", "imagepipe:img:" + url]) == "1"
            sets = Self.setCalls(port: port)
            stored = run.status == 0 && exists && sets >= 2
        }
        #expect(stored)
        #expect(sets == 2, "SET calls: \(sets)")
    }

    @Test(
        "--redis-lock-wait outside 0–3600, or without --redis, exits 1 naming the flag",
        arguments: [
            ["--redis", "redis://127.0.0.1:6379", "--redis-lock-wait", "3601"],
            ["--redis", "redis://127.0.0.1:6379", "--redis-lock-wait", "-1"],
            ["--redis-lock-wait", "5"],
        ])
    func lockWaitRange(arguments: [String]) async throws {
        let run = try await cli.run(["fetch", Samples.png] + arguments)
        #expect(run.status != 0)
        #expect(run.stderr.contains("--redis-lock-wait"), "\(run.stderr)")
    }

    @Test("The lock wait comes from the flag, else IMAGEPIPE_REDIS_LOCK_WAIT; the lock's lifetime stays 10 s (renewed while fetching)")
    func lockWaitSetting() throws {
        let url = "redis://127.0.0.1:6379"
        let plain = try #require(try RedisOption.configuration(url, lockWait: nil, environment: [:]))
        #expect(plain.lockMaxWait == .seconds(5) && plain.lockTimeToLive == .seconds(10))
        let fromVariable = try #require(try RedisOption.configuration(url, lockWait: nil, environment: ["IMAGEPIPE_REDIS_LOCK_WAIT": "30"]))
        #expect(fromVariable.lockMaxWait == .seconds(30) && fromVariable.lockTimeToLive == .seconds(10))
        let flagWins = try #require(try RedisOption.configuration(url, lockWait: 0, environment: ["IMAGEPIPE_REDIS_LOCK_WAIT": "30"]))
        #expect(flagWins.lockMaxWait == .zero && flagWins.lockTimeToLive == .seconds(10))
        #expect(throws: (any Error).self) {
            try RedisOption.configuration(url, lockWait: nil, environment: ["IMAGEPIPE_REDIS_LOCK_WAIT": "soon"])
        }
        #expect(throws: (any Error).self) {
            try RedisOption.configuration(url, lockWait: nil, environment: ["IMAGEPIPE_REDIS_LOCK_WAIT": "7200"])
        }
    }

    /// `redis-cli`'s answer, trimmed.
    static func redisCLI(port: UInt16, _ arguments: [String]) throws -> String {
        let output = try TestProcesses.run("/usr/bin/redis-cli", ["-p", "\(port)"] + arguments)
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Calls of `SET` the server has answered (`INFO commandstats`).
    static func setCalls(port: UInt16) -> Int {
        guard let output = try? TestProcesses.run("/usr/bin/redis-cli", ["-p", "\(port)", "INFO", "commandstats"]) else { return 0 }
        let line = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).first { $0.hasPrefix("cmdstat_set:") }
        return line.flatMap { $0.split(separator: ",").first?.split(separator: "=").last }.flatMap { Int($0) } ?? 0
    }
}
