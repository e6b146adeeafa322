import CodersPNG
import Foundation
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two `imagepipe serve` processes sharing one `redis-server`, fetching from one origin on loopback
/// that counts what it is asked for.
@Suite("imagepipe serve --redis", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct ServeRedisTests {
    static let image = try! PNGCoder().encode(
        Image(try! PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())

    /// A server whose waits for another's fetch are open-ended (`--redis-lock-wait`), so a loaded
    /// machine never turns a wait into a second origin request.
    static func startServer(redis: String, metricsPort: Int? = nil) async throws -> (ServeProcess, Int) {
        let server = try ServeProcess(
            [
                "--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--redis", redis,
                "--redis-lock-wait", "3600",
            ] + (metricsPort.map { ["--metrics-port", "\($0)"] } ?? []))
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        return (server, port)
    }

    static func stop(_ server: ServeProcess) async throws {
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    static func imageURL(port: Int, origin: TestHTTPServer, path: String) -> String {
        "http://127.0.0.1:\(port)/insecure/w:4/plain/\(origin.baseURL)\(path)@png"
    }

    /// "status etag" for each URL, by one curl; `parallel` sends them all at once.
    static func get(_ urls: [String], parallel: Bool = false) async throws -> [String] {
        let arguments =
            (parallel ? ["-Z", "--parallel-max", "100"] : []) + ["-s", "-w", "%{http_code} %header{etag}\\n"]
            + urls.flatMap { ["-o", "/dev/null", $0] }
        let output = try await runBlocking { try TestProcesses.run("/usr/bin/curl", arguments) }
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("a second server answers 100 sources the first fetched with 0 origin requests, with the same ETags")
    func warmSetFromRedis() async throws {
        let redis = try RedisTestServer()
        let origin = try TestHTTPServer()
        let paths = (0..<100).map { "/warm\($0).png" }
        for (index, path) in paths.enumerated() {
            origin.route(path) { _, connection in
                connection.respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"v\(index)\""], body: Self.image)
            }
        }
        let (first, firstPort) = try await Self.startServer(redis: redis.url())
        let (second, secondPort) = try await Self.startServer(redis: redis.url())
        let fromFirst = try await Self.get(paths.map { Self.imageURL(port: firstPort, origin: origin, path: $0) })
        #expect(fromFirst.count == 100 && fromFirst.allSatisfy { $0.hasPrefix("200 \"") }, "\(fromFirst)")
        #expect(paths.allSatisfy { origin.requestCount($0) == 1 })
        let fromSecond = try await Self.get(paths.map { Self.imageURL(port: secondPort, origin: origin, path: $0) })
        #expect(fromSecond == fromFirst)
        #expect(paths.map { origin.requestCount($0) }.reduce(0, +) == 100)
        try await Self.stop(first)
        try await Self.stop(second)
    }

    @Test("50 concurrent requests for a new source, spread over two servers, make 1 origin request")
    func concurrentMissesFetchOnce() async throws {
        let redis = try RedisTestServer()
        let origin = try TestHTTPServer()
        let (firstMetrics, secondMetrics) = (Int(TestProcesses.freePort()), Int(TestProcesses.freePort()))
        let (first, firstPort) = try await Self.startServer(redis: redis.url(), metricsPort: firstMetrics)
        let (second, secondPort) = try await Self.startServer(redis: redis.url(), metricsPort: secondMetrics)
        // The origin answers once both servers work on the source: the one that fetches, and the
        // one waiting for its copy through Redis. Neither can have it from the other before then.
        let bothWorking = Atomic(false)
        origin.route("/new.png") { _, connection in
            let deadline = ContinuousClock.now + .seconds(60)
            while !bothWorking.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(5_000) }
            connection.respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"new\""], body: Self.image)
        }
        let urls = (0..<50).map { Self.imageURL(port: $0 % 2 == 0 ? firstPort : secondPort, origin: origin, path: "/new.png") }
        async let answers = Self.get(urls, parallel: true)
        let working = await eventually(timeout: .seconds(60)) {
            let first = await Self.inFlight(port: firstMetrics), second = await Self.inFlight(port: secondMetrics)
            return first >= 1 && second >= 1
        }
        bothWorking.store(true, ordering: .releasing)
        #expect(working)
        let statuses = try await answers
        #expect(statuses.count == 50 && Set(statuses).count == 1 && statuses.first?.hasPrefix("200 \"") == true, "\(statuses)")
        #expect(origin.requestCount("/new.png") == 1)
        try await Self.stop(first)
        try await Self.stop(second)
    }

    @Test("with nothing listening at the Redis address, every request is still answered from the origin")
    func redisDownFetchesFromOrigin() async throws {
        let origin = try TestHTTPServer()
        origin.route("/alone.png") { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: Self.image)
        }
        let (server, port) = try await Self.startServer(redis: "redis://127.0.0.1:\(TestProcesses.freePort())")
        let answers = try await Self.get([Self.imageURL(port: port, origin: origin, path: "/alone.png")])
        #expect(answers.first?.hasPrefix("200 ") == true, "\(answers)")
        #expect(origin.requestCount("/alone.png") == 1)
        try await Self.stop(server)
    }

    @Test("/metrics counts Redis misses, the fetch claim, the store, hits, and connection errors once Redis is gone")
    func redisCountersInMetrics() async throws {
        let redis = try RedisTestServer()
        let origin = try TestHTTPServer()
        origin.route("/m.png") { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: Self.image)
        }
        let metricsPort = Int(TestProcesses.freePort())
        let (server, port) = try await Self.startServer(redis: redis.url(), metricsPort: metricsPort)
        let before = try await Self.metrics(port: metricsPort)
        #expect(before["imagepipe_redis_lookups_total{result=\"hit\"}"] == 0)
        let breaker = before.filter { $0.key.hasPrefix("imagepipe_redis_breaker_open{") }
        #expect(breaker.count == 1 && breaker.first?.value == 0, "\(breaker)")
        #expect(breaker.first?.key.contains("server=\"127.0.0.1:\(redis.port)/0\"") == true, "\(breaker)")

        // A miss: the result and then its source looked up (each before and after its lock) and
        // claimed; the source fetched and stored, the result rendered and stored.
        let url = { (width: Int) in "http://127.0.0.1:\(port)/insecure/w:\(width)/plain/\(origin.baseURL)/m.png@png" }
        #expect(try await Self.get([url(4)]).first?.hasPrefix("200") == true)
        let missed = try await Self.metrics(port: metricsPort)
        #expect(missed["imagepipe_redis_lookups_total{result=\"miss\"}", default: 0] >= 2)
        #expect(missed["imagepipe_redis_single_flight_total{outcome=\"claimed\"}"] == 2)
        #expect(missed["imagepipe_redis_stores_total{result=\"stored\"}"] == 1)
        #expect(missed["imagepipe_redis_results_total{outcome=\"miss\"}"] == 1)
        #expect(missed["imagepipe_redis_results_total{outcome=\"stored\"}"] == 1)
        #expect(missed["imagepipe_redis_lookups_total{result=\"hit\"}"] == 0)

        // Another size of the same source: the result is new, the source comes from Redis.
        #expect(try await Self.get([url(5)]).first?.hasPrefix("200") == true)
        let hit = try await Self.metrics(port: metricsPort)
        #expect(hit["imagepipe_redis_lookups_total{result=\"hit\"}"] == 1)
        #expect(origin.requestCount("/m.png") == 1)

        // Redis gone: answered from the origin, the error counted by kind.
        redis.stop()
        #expect(try await Self.get([url(6)]).first?.hasPrefix("200") == true)
        let down = try await Self.metrics(port: metricsPort)
        #expect(down["imagepipe_redis_errors_total{kind=\"connection\"}", default: 0] >= 1)
        #expect(down["imagepipe_redis_errors_total{kind=\"timeout\"}", default: 0] == 0)
        try await Self.stop(server)
    }

    /// The server's `/metrics` (on its metrics port) parsed as Prometheus text: each sample's series
    /// (`name{label="value",…}`, as written) and value; comments and blank lines skipped.
    static func metrics(port: Int) async throws -> [String: Double] {
        let output = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/metrics"]) }
        var samples: [String: Double] = [:]
        for line in String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                Issue.record("not a Prometheus sample: \(line)")
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// `imagepipe_requests_in_flight` from the server's `/metrics`.
    static func inFlight(port: Int) async -> Int {
        guard let output = try? await runBlocking({ try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/metrics"]) }) else { return 0 }
        let line = String(decoding: output, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("imagepipe_requests_in_flight ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}
