import CodersPNG
import Foundation
import Logging
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import ImageServer
@testable import imagepipe_serve

/// Two `serve` servers in this process, configured by `serve`'s own flags, sharing one
/// `redis-server`: results rendered once for both, and purged from both.
@Suite("imagepipe serve: results shared and purged through Redis", .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
struct ServeFleetTests {
    static let secret = "s3cret-admin"

    /// A solid 8×8 PNG of `gray`.
    static func image(_ gray: UInt8) -> Data {
        let buffer = try! PixelBuffer(width: 8, height: 8, format: .rgb8, bytes: [UInt8](repeating: gray, count: 8 * 8 * 3))
        return try! PNGCoder().encode(Image(buffer, format: .png), as: .png, options: ImageEncodeOptions())
    }

    /// An origin whose `path`s answer the image of the current `gray`, with an ETag naming it.
    final class Origin: Sendable {
        let server: TestHTTPServer
        let gray = Mutex<UInt8>(200)
        /// While false, requests wait at the origin.
        let released = Atomic(true)

        init(paths: [String]) throws {
            server = try TestHTTPServer()
            for path in paths {
                server.route(path) { [self] _, connection in
                    let deadline = ContinuousClock.now + .seconds(60)
                    while !released.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(5_000) }
                    let value = gray.withLock { $0 }
                    connection.respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"g\(value)\""], body: ServeFleetTests.image(value))
                }
            }
        }

        func url(_ path: String) -> String { server.baseURL + path }
    }

    /// One in-process server; `stop` ends it as SIGTERM would.
    struct Server {
        let server: ImageServer
        let task: Task<Void, any Error>
        let port: Int

        static func start(_ arguments: [String]) async throws -> Server {
            let command = try ServeCommand.parse(["--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet"] + arguments)
            let pools = RedisPoolService()
            var logger = Logger(label: "imagepipe.serve.test")
            logger.logLevel = .critical
            let server = ImageServer(configuration: try command.serverConfiguration(redisPools: pools), logger: logger)
            let (addresses, continuation) = AsyncStream.makeStream(of: String.self)
            let task = Task { try await server.run(services: [pools]) { continuation.yield($0) } }
            var iterator = addresses.makeAsyncIterator()
            let address = try #require(await iterator.next())
            let port = try #require(address.split(separator: ":").last.flatMap { Int($0) })
            return Server(server: server, task: task, port: port)
        }

        func stop() async {
            task.cancel()
            _ = await task.result
        }

        func imageURL(_ source: String, width: Int = 4) -> String { "http://127.0.0.1:\(port)/insecure/w:\(width)/plain/\(source)@png" }

        /// A sample of the server's `/metrics`, 0 when absent.
        func metric(_ series: String) -> Double {
            let text = server.handler.metrics.exposition()
            for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
                return Double(line.split(separator: " ").last ?? "") ?? 0
            }
            return 0
        }

        /// Images this server rendered itself.
        var renders: Int { Int(metric("imagepipe_processing_duration_seconds_count")) }
    }

    struct Answer: Hashable {
        let status: Int
        let etag: String
        let body: Data
    }

    /// One GET (or, with `purge`, a purge's POST) by curl.
    static func fetch(_ url: String, headers: [String] = [], form: [String] = []) async throws -> Answer {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let arguments =
            ["-s", "-o", file.path, "-w", "%{http_code} %header{etag}"] + headers.flatMap { ["-H", $0] }
            + form.flatMap { ["--data-urlencode", $0] } + [url]
        let output = try await runBlocking { try TestProcesses.run("/usr/bin/curl", arguments) }
        let parts = String(decoding: output, as: UTF8.self).split(separator: " ", maxSplits: 1)
        return Answer(
            status: Int(parts.first ?? "") ?? 0, etag: parts.count > 1 ? String(parts[1]) : "",
            body: (try? Data(contentsOf: file)) ?? Data())
    }

    static func purge(_ server: Server, _ field: String, bearer: String? = secret) async throws -> Answer {
        try await fetch(
            "http://127.0.0.1:\(server.port)/purge", headers: bearer.map { ["Authorization: Bearer \($0)"] } ?? [], form: [field])
    }

    static func fleet(_ redis: RedisTestServer, _ extra: [String] = []) async throws -> (Server, Server) {
        let arguments = ["--redis", redis.url(), "--redis-lock-wait", "3600", "--admin-secret", secret] + extra
        return (try await Server.start(arguments), try await Server.start(arguments))
    }

    @Test("two servers sharing one Redis render a URL once, the second answers it from Redis with the same ETag")
    func renderedOnce() async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: ["/once.png"])
        let (first, second) = try await Self.fleet(redis)
        let fromFirst = try await Self.fetch(first.imageURL(origin.url("/once.png")))
        let fromSecond = try await Self.fetch(second.imageURL(origin.url("/once.png")))
        #expect(fromFirst.status == 200 && fromFirst.etag.hasPrefix("\""))
        #expect(fromSecond == fromFirst)
        #expect(first.renders + second.renders == 1)
        #expect(second.metric("imagepipe_cache_hits_total{tier=\"shared\"}") == 1)
        #expect(first.metric("imagepipe_redis_results_total{outcome=\"stored\"}") == 1)
        #expect(second.metric("imagepipe_redis_results_total{outcome=\"hit\"}") == 1)
        #expect(origin.server.requestCount("/once.png") == 1)
        await first.stop()
        await second.stop()
    }

    @Test("40 concurrent requests for a new URL, spread over two servers, make one render and one ETag")
    func concurrentRequestsRenderOnce() async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: ["/burst.png"])
        let (first, second) = try await Self.fleet(redis)
        // The origin answers once both servers work on the URL: the one rendering it, and the one
        // waiting for its result. Neither can have it from the other before then.
        origin.released.store(false, ordering: .releasing)
        async let answers = withThrowingTaskGroup(of: Answer.self) { group in
            for index in 0..<40 {
                group.addTask { try await Self.fetch((index % 2 == 0 ? first : second).imageURL(origin.url("/burst.png"))) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let bothWorking = await eventually {
            first.metric("imagepipe_requests_in_flight") >= 1 && second.metric("imagepipe_requests_in_flight") >= 1
        }
        origin.released.store(true, ordering: .releasing)
        #expect(bothWorking)
        let all = try await answers
        #expect(all.count == 40 && Set(all).count == 1 && all.first?.status == 200)
        #expect(first.renders + second.renders == 1)
        #expect(origin.server.requestCount("/burst.png") == 1)
        await first.stop()
        await second.stop()
    }

    @Test("a result over --redis-max-result-bytes is not stored: each server renders it")
    func largeResultStaysLocal() async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: ["/large.png"])
        let (first, second) = try await Self.fleet(redis, ["--redis-max-result-bytes", "16"])
        let fromFirst = try await Self.fetch(first.imageURL(origin.url("/large.png")))
        let fromSecond = try await Self.fetch(second.imageURL(origin.url("/large.png")))
        #expect(fromFirst.status == 200 && fromFirst.body.count > 16)
        #expect(fromSecond == fromFirst)
        #expect(first.renders == 1 && second.renders == 1)
        #expect(first.metric("imagepipe_redis_results_total{outcome=\"too_large\"}") == 1)
        #expect(first.metric("imagepipe_redis_results_total{outcome=\"stored\"}") == 0)
        #expect(second.metric("imagepipe_cache_hits_total{tier=\"shared\"}") == 0)
        await first.stop()
        await second.stop()
    }

    /// Both servers hold `path`'s result in memory; the origin changes it; `purge` purges it on
    /// the first. Then neither answers the old result, and both answer the new one, rendered once.
    func purgeReachesEveryServer(path: String, purge field: (Origin) -> String) async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: [path])
        let (first, second) = try await Self.fleet(redis)
        let old = try await Self.fetch(first.imageURL(origin.url(path)))
        #expect(try await Self.fetch(second.imageURL(origin.url(path))) == old)
        // The second's memory tier answers now, without asking Redis for the result.
        #expect(try await Self.fetch(second.imageURL(origin.url(path))) == old)
        #expect(second.metric("imagepipe_cache_hits_total{tier=\"memory\"}") >= 1)
        origin.gray.withLock { $0 = 40 }

        let purged = try await Self.purge(first, field(origin))
        #expect(purged.status == 200, "\(String(decoding: purged.body, as: UTF8.self))")
        let fromSecond = try await Self.fetch(second.imageURL(origin.url(path)))
        let fromFirst = try await Self.fetch(first.imageURL(origin.url(path)))
        #expect(fromSecond.status == 200 && fromSecond.etag != old.etag && fromSecond.body != old.body)
        #expect(fromFirst == fromSecond)
        #expect(first.renders + second.renders == 2)
        #expect(origin.server.requestCount(path) == 2)
        await first.stop()
        await second.stop()
    }

    @Test("a purge by URL on one server: no server answers the old bytes or ETag, memory tiers included")
    func purgeByURL() async throws {
        try await purgeReachesEveryServer(path: "/p/cat.png") { "url=" + $0.url("/p/cat.png") }
    }

    @Test("a purge by prefix reaches every source under it")
    func purgeByPrefix() async throws {
        try await purgeReachesEveryServer(path: "/shop/items/cat.png") { "prefix=" + $0.url("/shop/") }
    }

    @Test("a purge of another URL or prefix leaves the result in place")
    func purgeOfOtherSourceKeepsResult() async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: ["/keep/cat.png"])
        let (first, second) = try await Self.fleet(redis)
        let old = try await Self.fetch(first.imageURL(origin.url("/keep/cat.png")))
        #expect(try await Self.purge(second, "url=" + origin.url("/keep/dog.png")).status == 200)
        #expect(try await Self.purge(second, "prefix=" + origin.url("/other/")).status == 200)
        #expect(try await Self.fetch(first.imageURL(origin.url("/keep/cat.png"))) == old)
        #expect(try await Self.fetch(second.imageURL(origin.url("/keep/cat.png"))) == old)
        #expect(first.renders + second.renders == 1)
        await first.stop()
        await second.stop()
    }

    @Test("a purge with a wrong or missing bearer is 403; a prefix not ending in / is 400")
    func purgeRefusals() async throws {
        let redis = try RedisTestServer()
        let (first, second) = try await Self.fleet(redis)
        #expect(try await Self.purge(first, "url=http://127.0.0.1:1/x.png", bearer: "wrong").status == 403)
        #expect(try await Self.purge(first, "url=http://127.0.0.1:1/x.png", bearer: nil).status == 403)
        #expect(try await Self.purge(first, "prefix=http://127.0.0.1:1/x").status == 400)
        #expect(try await Self.purge(first, "neither=1").status == 400)
        #expect(try await Self.purge(first, "url=http://127.0.0.1:1/x.png").status == 200)
        await first.stop()
        await second.stop()
    }

    @Test("without --admin-secret, /purge is 404")
    func purgeOffWithoutSecret() async throws {
        let redis = try RedisTestServer()
        let server = try await Server.start(["--redis", redis.url()])
        #expect(try await Self.purge(server, "url=http://127.0.0.1:1/x.png").status == 404)
        #expect(try await Self.purge(server, "url=http://127.0.0.1:1/x.png", bearer: nil).status == 404)
        await server.stop()
    }

    @Test("Redis stopped: images are still answered 200 (new and known ones), a purge is 503")
    func redisDown() async throws {
        let redis = try RedisTestServer()
        let origin = try Origin(paths: ["/known.png", "/new.png"])
        let (first, second) = try await Self.fleet(redis)
        let known = try await Self.fetch(first.imageURL(origin.url("/known.png")))
        #expect(known.status == 200)
        redis.stop()
        for server in [first, second] {
            #expect(try await Self.fetch(server.imageURL(origin.url("/known.png"))).status == 200)
            #expect(try await Self.fetch(server.imageURL(origin.url("/new.png"))).status == 200)
            #expect(try await Self.fetch(server.imageURL(origin.url("/new.png"))).status == 200)
        }
        #expect(try await Self.purge(first, "url=" + origin.url("/known.png")).status == 503)
        await first.stop()
        await second.stop()
    }
}

@Suite("imagepipe serve: the fleet's flags")
struct ServeFleetFlagTests {
    @Test("--admin-secret and --redis-max-result-bytes need --redis; units are taken; the secret is never logged")
    func flags() throws {
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--allow-unsigned", "--admin-secret", "x"]).serverConfiguration() }
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--allow-unsigned", "--redis-max-result-bytes", "1MiB"]).serverConfiguration() }
        #expect(throws: (any Error).self) {
            try ServeCommand.parse(["--allow-unsigned", "--redis", "redis://127.0.0.1:1", "--admin-secret", "has space"]).serverConfiguration()
        }
        let command = try ServeCommand.parse([
            "--allow-unsigned", "--redis", "redis://127.0.0.1:1", "--redis-max-result-bytes", "2MiB", "--admin-secret", "top-secret-1",
        ])
        #expect(command.redisMaxResultBytes?.bytes == 2 << 20)
        let configuration = try command.serverConfiguration()
        #expect(configuration.adminSecret == "top-secret-1" && configuration.sharedResults != nil)
        let logged = EffectiveSettings.metadata(configuration)
        #expect(logged["adminSecret"] == "set (not shown)" && logged["sharedResults"] == "set (not shown)")
        #expect(!logged.values.contains { "\($0)".contains("top-secret-1") })
    }
}
