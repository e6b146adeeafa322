import Foundation
import PipelineConformance
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The kit's HTTP server is public API for loader authors; these check its ready-made routes with
/// a raw socket client, so no loader under test is involved.
@Suite("The kit's HTTP server")
struct TestHTTPServerTests {
    /// One request with `Connection: close`; reads until the server closes. Blocking: run it
    /// through `runBlocking`.
    static func fetch(_ port: UInt16, _ path: String) throws -> (status: Int, body: Data) {
        let fd = try connectClient(port)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        let text = String(decoding: received.prefix(64), as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let headEnd = (0..<max(0, received.count - 3)).first { received[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }
        return (status, headEnd.map { Data(received[($0 + 4)...]) } ?? Data())
    }

    static func connectClient(_ port: UInt16) throws -> Int32 {
        let fd = TestProcesses.connectLoopback(port: port)
        guard fd >= 0 else { throw TestServerError.socket(errno) }
        // A server bug must fail the test, not hang it.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    @Test("bytes, slow bodies and statuses arrive whole; unrouted paths are 404; requests are counted")
    func routes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        server.serveBytes("/bytes", body)
        server.serveSlowBody("/slow", body, chunks: 5, interval: .milliseconds(5))
        server.serveStatus("/gone", 410)
        let port = server.port
        let bytes = try await runBlocking { try Self.fetch(port, "/bytes") }
        #expect(bytes.status == 200 && bytes.body == body)
        let slow = try await runBlocking { try Self.fetch(port, "/slow") }
        #expect(slow.status == 200 && slow.body == body)
        #expect(try await runBlocking { try Self.fetch(port, "/gone") }.status == 410)
        #expect(try await runBlocking { try Self.fetch(port, "/nowhere") }.status == 404)
        #expect(server.requestCount("/bytes") == 1 && server.requestCount("/slow") == 1 && server.requestCount("/gone") == 1)
    }

    @Test("a never-answering route holds the connection until the client leaves, then lets it go")
    func neverAnswer() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.serveNeverAnswer("/never")
        let port = server.port
        let fd = try await runBlocking { try Self.connectClient(port) }
        let request = "GET /never HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #expect(await eventually { server.requestCount("/never") == 1 })
        #expect(server.openConnectionCount == 1)
        close(fd)
        #expect(await eventually { server.openConnectionCount == 0 })
    }

    @Test("stop ends the server: it says so, and connections are refused")
    func stop() async throws {
        let server = try TestHTTPServer()
        server.stop()
        server.stop()
        #expect(server.isStopped)
        let port = server.port
        await #expect(throws: TestServerError.self) { _ = try await runBlocking { try Self.connectClient(port) } }
    }
}
