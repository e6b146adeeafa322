import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineConformance
import Synchronization
import TestSupport
import Testing

@testable import ImageServer
@testable import PipelineCore

/// An origin route that holds its answer until `open()`, and notes a client that went away.
final class Gate: Sendable {
    private let opened = Atomic(false)
    private let clientLeft = Atomic(0)

    /// A gate serving a 16x16 PNG at `/held.png` on `origin`.
    static func heldPNG(on origin: TestHTTPServer) -> Gate {
        let gate = Gate()
        gate.serve(ServerFixture.png(width: 16, height: 16), at: "/held.png", on: origin)
        return gate
    }

    func open() { opened.store(true, ordering: .releasing) }
    var clientsThatLeft: Int { clientLeft.load(ordering: .acquiring) }

    /// Serves `data` at `path` once the gate opens; a client that closes first is counted.
    func serve(_ data: Data, at path: String, on origin: TestHTTPServer) {
        origin.route(path) { [self] _, connection in
            let left = OnceFlag()
            Thread {
                connection.waitUntilClientCloses()
                left.set()
            }.start()
            while !opened.load(ordering: .acquiring) {
                if left.isSet {
                    clientLeft.add(1, ordering: .releasing)
                    connection.closeIfOpen()
                    return
                }
                usleep(5_000)
            }
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: data)
        }
    }
}

@Suite("Load: bounded work, 429, deadlines and disconnects over real sockets")
struct LoadTests {
    /// One worker and a queue of one: a second request waits, a third is refused.
    static func oneWorkerOneQueued() throws -> ServerFixture {
        try ServerFixture().with {
            $0.workers = 1
            $0.queueSize = 1
        }
    }

    @Test("past the workers and the queue, a request is answered 429 with Retry-After; the others complete")
    func queueFull() async throws {
        let fixture = try Self.oneWorkerOneQueued()
        let gate = Gate.heldPNG(on: fixture.origin)
        let server = fixture.makeServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            async let first = RawHTTPClient.get(port: port, fixture.url("w:10", "/held.png", ext: "png"))
            #expect(await eventually(timeout: .seconds(30)) { fixture.origin.requestCount("/held.png") == 1 })
            async let second = RawHTTPClient.get(port: port, fixture.url("w:11", "/held.png", ext: "png"))
            #expect(await eventually(timeout: .seconds(30)) { server.handler.limiter.queued == 1 })
            let refused = try #require(try await RawHTTPClient.get(port: port, fixture.url("w:12", "/held.png", ext: "png")))
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] == "1")
            #expect(String(decoding: refused.body, as: UTF8.self) == "too many requests; try again later\n")
            gate.open()
            #expect(try await first?.status == 200)
            #expect(try await second?.status == 200)
        }
    }

    @Test("a request waiting on its origin holds a place but no worker")
    func fetchHoldsNoWorker() async throws {
        let fixture = try Self.oneWorkerOneQueued()
        let gate = Gate.heldPNG(on: fixture.origin)
        let server = fixture.makeServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            async let answer = RawHTTPClient.get(port: port, fixture.url("w:10", "/held.png", ext: "png"))
            #expect(await eventually(timeout: .seconds(30)) { fixture.origin.requestCount("/held.png") == 1 })
            let limiter = server.handler.limiter
            #expect(limiter.admitted == 1)
            #expect(limiter.processing == 0)
            gate.open()
            #expect(try await answer?.status == 200)
            #expect(limiter.admitted == 0 && limiter.processing == 0)
        }
    }

    @Test("a client that disconnects cancels the origin fetch it alone waited for")
    func disconnectCancelsFetch() async throws {
        let fixture = try ServerFixture()
        let gate = Gate.heldPNG(on: fixture.origin)
        try await fixture.makeServer().makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let raw = try RawHTTPClient(port: port)
            raw.send(get: fixture.url("w:10", "/held.png", ext: "png"))
            #expect(await eventually(timeout: .seconds(30)) { fixture.origin.requestCount("/held.png") == 1 })
            shutdown(raw.fd, Int32(SHUT_RDWR))
            #expect(await eventually(timeout: .seconds(30)) { gate.clientsThatLeft == 1 })
            gate.open()
        }
    }

    @Test("a client that disconnects leaves a fetch another request shares running")
    func sharedFetchSurvivesDisconnect() async throws {
        let fixture = try ServerFixture()
        let gate = Gate.heldPNG(on: fixture.origin)
        let server = fixture.makeServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let leaving = try RawHTTPClient(port: port)
            leaving.send(get: fixture.url("w:10", "/held.png", ext: "png"))
            #expect(await eventually(timeout: .seconds(30)) { fixture.origin.requestCount("/held.png") == 1 })
            async let staying = RawHTTPClient.get(port: port, fixture.url("w:11", "/held.png", ext: "png"))
            // Both requests wait on one fetch before the first client leaves.
            let renderer = server.handler.renderer
            #expect(await eventually(timeout: .seconds(30)) { renderer.originWaiters == 2 })
            shutdown(leaving.fd, Int32(SHUT_RDWR))
            #expect(await eventually(timeout: .seconds(30)) { renderer.originWaiters == 1 })
            gate.open()
            #expect(try await staying?.status == 200)
            #expect(fixture.origin.requestCount("/held.png") == 1)
            #expect(gate.clientsThatLeft == 0)
        }
    }

    @Test("identical requests at once are processed once, fetch to encode, even with no result cache")
    func identicalRequestsRenderOnce() async throws {
        let fixture = try ServerFixture().with {
            $0.memoryLimit = 0
            $0.workers = 1
        }
        let gate = Gate.heldPNG(on: fixture.origin)
        let server = fixture.makeServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let url = fixture.url("w:10", "/held.png", ext: "png")
            async let answers = withThrowingTaskGroup(of: Data?.self) { group in
                for _ in 0..<8 { group.addTask { try await RawHTTPClient.get(port: port, url).map { $0.status == 200 ? $0.body : nil } ?? nil } }
                return try await group.reduce(into: [Data?]()) { $0.append($1) }
            }
            // All eight wait on one render (one worker, no 429) before the origin answers.
            #expect(await eventually(timeout: .seconds(30)) { server.handler.renders.joinerCount == 8 })
            gate.open()
            let bodies = try await answers
            #expect(bodies.count == 8 && bodies.allSatisfy { $0 != nil && $0 == bodies[0] })
            #expect(fixture.origin.requestCount("/held.png") == 1)
            let samples = OperationsTests.parse(server.handler.metrics.exposition())
            #expect(samples["imagepipe_processing_duration_seconds_count"] == 1)
        }
    }

    @Test("a request past its deadline is answered 503, as imgproxy answers, and its fetch is cancelled")
    func deadline() async throws {
        let fixture = try ServerFixture().with {
            $0.requestTimeout = .seconds(1)
        }
        let gate = Gate.heldPNG(on: fixture.origin)
        try await fixture.makeServer().makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let answer = try #require(try await RawHTTPClient.get(port: port, fixture.url("w:10", "/held.png", ext: "png")))
            #expect(answer.status == 503)
            #expect(await eventually(timeout: .seconds(30)) { gate.clientsThatLeft == 1 })
            gate.open()
        }
    }
}
