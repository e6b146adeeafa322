import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineConformance
import Synchronization
import TestSupport
import Testing

@testable import ImageServer

/// `raw:1` over real sockets: the origin's body reaches the client as it arrives, still bounded by
/// `maxSourceBytes`.
@Suite("raw:1 streams")
struct RawStreamTests {
    /// `first`, then nothing until `resume` is set, then `rest`; `Content-Length` announced unless `announcesLength` is false.
    static func servePaused(_ path: String, first: Data, rest: Data, on origin: TestHTTPServer, announcesLength: Bool = true, resume: OnceFlag) {
        origin.route(path) { _, connection in
            let length = announcesLength ? "Content-Length: \(first.count + rest.count)\r\n" : "Connection: close\r\n"
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\(length)\r\n"), connection.write(first) else { return }
            let deadline = Date().addingTimeInterval(30)
            while !resume.isSet && Date() < deadline { usleep(5_000) }
            _ = connection.write(rest)
            if !announcesLength { connection.closeIfOpen() }
        }
    }

    static func body(_ size: Int, byte: UInt8) -> Data { Data(repeating: byte, count: size) }

    /// `work` on a thread of its own: a blocking read on the concurrency pool's few threads would
    /// starve the server under test.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: work()) }.start() }
    }

    @Test("the first bytes reach the client before the origin has sent the last ones")
    func streamsAsItArrives() async throws {
        let fixture = try ServerFixture()
        let resume = OnceFlag()
        let first = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Self.body(100_000, byte: 0x41)
        let rest = Self.body(100_000, byte: 0x42)
        Self.servePaused("/paused.png", first: first, rest: rest, on: fixture.origin, resume: resume)
        try await fixture.makeServer().makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let raw = try RawHTTPClient(port: port, readTimeout: 30)
            raw.send(get: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/paused.png"))
            let early = await Self.onThread {
                raw.receive { data in
                    guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
                    return data.count - end.upperBound >= first.count
                }
            }
            let headEnd = try #require(early.range(of: Data("\r\n\r\n".utf8)))
            let head = String(decoding: early[..<headEnd.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-type: image/png"))
            #expect(head.lowercased().contains("content-length: \(first.count + rest.count)"))
            #expect(early[headEnd.upperBound...].prefix(first.count) == first, "the first bytes arrived while the origin held the rest")
            resume.set()
            let all = early + (await Self.onThread { raw.receive { _ in false } })
            #expect(all[headEnd.upperBound...] == first + rest)
        }
    }

    @Test("a stream past --max-source-bytes is cut: the client never sees a complete answer")
    func streamBounded() async throws {
        let fixture = try ServerFixture().with { $0.maxSourceBytes = 150_000 }
        let resume = OnceFlag()
        let first = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Self.body(100_000, byte: 0x41)
        Self.servePaused("/endless.png", first: first, rest: Self.body(100_000, byte: 0x42), on: fixture.origin, announcesLength: false, resume: resume)
        try await fixture.makeServer().makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let raw = try RawHTTPClient(port: port, readTimeout: 30)
            raw.send(get: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/endless.png"))
            let early = await Self.onThread { raw.receive { data in data.count > first.count } }
            #expect(String(decoding: early.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
            resume.set()
            let all = early + (await Self.onThread { raw.receive { _ in false } })
            let headEnd = try #require(all.range(of: Data("\r\n\r\n".utf8)))
            #expect(String(decoding: all[..<headEnd.lowerBound], as: UTF8.self).lowercased().contains("transfer-encoding: chunked"))
            #expect(!all.suffix(5).elementsEqual(Data("0\r\n\r\n".utf8)), "no last chunk: the body was cut")
            #expect(all.count - headEnd.upperBound < 150_000 + 1_000)
        }
    }

    @Test("a client that reads nothing holds the origin's bytes in the origin, not in the server")
    func slowClientPausesOrigin() async throws {
        let total = 64 << 20
        let fixture = try ServerFixture().with { $0.maxSourceBytes = 2 * total }
        let sent = Atomic<Int>(0)
        let run = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Self.body((64 << 10) - 8, byte: 0x41)
        fixture.origin.route("/large.png") { _, connection in
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(total)\r\n\r\n") else { return }
            while sent.load(ordering: .relaxed) < total, connection.write(run) { sent.add(run.count, ordering: .relaxed) }
        }
        try await fixture.makeServer().makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let raw = try RawHTTPClient(port: port, readTimeout: 60)
            raw.send(get: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/large.png"))
            // The origin sends until the buffers between it and the client are full, then waits.
            let last = Atomic<Int>(-1)
            let settled = try await timeUntil(timeout: .seconds(60)) {
                Thread.sleep(forTimeInterval: 0.5)
                let now = sent.load(ordering: .relaxed)
                return last.exchange(now, ordering: .relaxed) == now
            }
            #expect(settled != nil)
            let held = sent.load(ordering: .relaxed)
            // The server's share is one megabyte; the rest are the kernel's socket buffers.
            #expect(held < total / 2, "the origin sent \(held) of \(total) bytes to a client that read none")
            let all = await Self.onThread { raw.receive { _ in false } }
            let headEnd = try #require(all.range(of: Data("\r\n\r\n".utf8)))
            #expect(all.count - headEnd.upperBound == total, "then the whole body, once the client reads")
            #expect(sent.load(ordering: .relaxed) == total)
        }
    }

    @Test("an origin failing before any byte is answered with its status, as before")
    func failsBeforeBytes() async throws {
        let fixture = try ServerFixture()
        fixture.origin.route("/gone.png") { _, connection in connection.respond(status: 404) }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/gone.png"), method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }

    @Test("Range and Accept-Encoding go to the origin; its 206, Content-Range, Accept-Ranges and Content-Encoding come back with its bytes")
    func rangeAndEncoding() async throws {
        let fixture = try ServerFixture()
        let whole = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Self.body(1_000, byte: 0x41)
        let gzipped = Data([0x1F, 0x8B, 0x08, 0x00]) + Self.body(40, byte: 0x43)
        let seen = Mutex<[String]>([])
        fixture.origin.route("/ranged.png") { request, connection in
            let (range, encoding) = (request.headers["range"], request.headers["accept-encoding"])
            seen.withLock { $0.append("\(range ?? "-") \(encoding ?? "-")") }
            if range == "bytes=0-7" {
                connection.respond(
                    status: 206, headers: ["Content-Type": "image/png", "Content-Range": "bytes 0-7/\(whole.count)", "Accept-Ranges": "bytes"],
                    body: whole.prefix(8))
            } else if encoding == "gzip" {
                connection.respond(status: 200, headers: ["Content-Type": "image/png", "Content-Encoding": "gzip"], body: gzipped)
            } else {
                connection.respond(status: 200, headers: ["Content-Type": "image/png", "Accept-Ranges": "bytes"], body: whole)
            }
        }
        let url = ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/ranged.png")
        try await fixture.makeServer().makeApplication().test(.live) { client in
            try await client.execute(uri: url, method: .get, headers: [.range: "bytes=0-7"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 0-7/\(whole.count)")
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(Data(buffer: response.body) == whole.prefix(8))
            }
            try await client.execute(uri: url, method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(Data(buffer: response.body) == gzipped, "the origin's encoded bytes, not decoded")
            }
            try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == nil)
                #expect(Data(buffer: response.body) == whole)
            }
        }
        #expect(seen.withLock { $0 } == ["bytes=0-7 -", "- gzip", "- -"])
    }
}
