import CZlib
import Foundation
import PipelineConformance
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve` against clients that try to hold it: each attack runs against a real server
/// process on loopback, bounded in count and time.
@Suite("imagepipe serve under hostile clients", .dedicatedThreads)
struct ServeHostileClientTests {
    @Test("Slowloris: connections sending half a header are closed at --idle-timeout, and /health answers meanwhile past --max-connections")
    func slowloris() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--quiet", "--idle-timeout", "1", "--max-connections", "16"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        // 40 connections, each half a request head, more than the server takes at once.
        let held = (0..<40).compactMap { _ in try? RawHTTPClient(port: port, readTimeout: 30) }
        #expect(held.count == 40)
        for client in held { client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
        // /health, asked while they are open, is answered once the idle timeout frees a slot.
        let health = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "-m", "60", "http://127.0.0.1:\(port)/health"]) }
        #expect(String(decoding: health, as: UTF8.self) == "ok\n")
        // Every slow connection is closed by the server: a read ends (EOF or reset) before this
        // side's 30 s read limit, where without the timeout it would wait for ever.
        let closed = try await runBlocking { held.map { $0.waitForClose() } }
        #expect(closed.filter { $0 }.count == 40, "\(closed.filter { !$0 }.count) still open")
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    /// A 5000×5000 solid PNG: a few kilobytes to fetch, 25 megapixels to decode and encode, so a
    /// short deadline falls in the decode or the encode of every output format.
    static let largeSolid = TestPNGWriter.solid(width: 5000, height: 5000, value: 90)
    /// The same size in 5000 colours: GIF's palette is a median cut, not the colours as they are.
    static let largeColumns = columns(width: 5000, height: 5000)

    /// An opaque RGB PNG of `width` distinct colours in every row (red and green counting up the
    /// columns), each row repeating the first through PNG's Up filter: more colours than a
    /// palette holds, built without a pixel loop over the rows and small once compressed.
    static func columns(width: Int, height: Int) -> Data {
        let rowBytes = width * 3 + 1
        var raw = [UInt8](repeating: 0, count: height * rowBytes)
        for x in 0..<width {
            raw[1 + x * 3] = UInt8(x & 0xFF)
            raw[2 + x * 3] = UInt8((x >> 8) * 16 & 0xFF)
            raw[3 + x * 3] = 90
        }
        for y in 1..<max(height, 1) { raw[y * rowBytes] = 2 }
        var length = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        precondition(compress2(&compressed, &length, raw, uLong(raw.count), 6) == Z_OK)
        return Data(
            HostileImages.pngSignature + HostileImages.pngChunk("IHDR", HostileImages.be32(width) + HostileImages.be32(height) + [8, 2, 0, 0, 0])
                + HostileImages.pngChunk("IDAT", Array(compressed.prefix(Int(length)))) + HostileImages.pngChunk("IEND", []))
    }

    // One format at a time: five 49 MP jobs at once on two cores would time the machine, not the stop.
    @Test(
        "Every output format stops at its 503, in whatever step the deadline falls: the worker is free for the next request", .serialized,
        arguments: ["webp", "png", "jpg", "gif", "avif", "jxl"], ["solid.png", "columns.png"])
    func everyFormatStops(format: String, source: String) async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        origin.serveBytes("/solid.png", Self.largeSolid, contentType: "image/png")
        origin.serveBytes("/columns.png", Self.largeColumns, contentType: "image/png")
        origin.serveBytes("/small.png", TestPNGWriter.solid(width: 8, height: 8, value: 200), contentType: "image/png")
        let server = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--workers", "1", "--request-timeout", "1", "--no-cache",
        ])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let base = "http://127.0.0.1:\(port)/insecure"
        // 503 where the deadline fell in the work; an encoder that finishes 25 MP of one colour
        // within the second answers 200, and its worker must be free all the same.
        let cheap = "\(base)/plain/\(origin.baseURL)/small.png@png"
        let first = try await runBlocking { Self.status("\(base)/q:90/plain/\(origin.baseURL)/\(source)@\(format)") }
        #expect(first == "503" || first == "200", "\(format), \(source): \(first)")
        // Free once a cheap request is answered within its own deadline (a busy worker makes it 503).
        let elapsed = try await timeUntil { Self.status(cheap) == "200" }
        #expect(elapsed.map { $0 < .seconds(8) } == true, "\(format), \(source): the worker was busy \(elapsed.map { "\($0)" } ?? "60 s") after the 503")
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    @Test(
        "A large AVIF or WebP is encoded in a child process, which the server kills when its client hangs up: the worker is free again", .serialized,
        arguments: ["avif", "webp"], [false, true])
    func childKilledOnDisconnect(format: String, diskCache: Bool) async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        origin.serveBytes("/columns.png", Self.largeColumns, contentType: "image/png")
        origin.serveBytes("/small.png", TestPNGWriter.solid(width: 8, height: 8, value: 200), contentType: "image/png")
        // With a disk cache the source is decoded through the cache's manager and encoded apart.
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("child-killed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let server = try ServeProcess(
            ["--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--workers", "1", "--request-timeout", "600"]
                + (diskCache ? ["--cache-dir", cacheFolder.path] : ["--no-cache"]))
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let pid = server.process.processIdentifier
        let client = try RawHTTPClient(port: port, readTimeout: 600)
        client.send(get: "/insecure/plain/\(origin.baseURL)/columns.png@\(format)")
        // Neither libaom nor libwebp stops everywhere: the server hands the encode to a child it can
        // kill. Without one the encode runs to its end in the server and the answer comes first.
        let sawChild = SeenFlag()
        let fd = client.fd
        _ = try await timeUntil(timeout: .seconds(300)) {
            if !Self.children(of: pid).isEmpty {
                sawChild.seen.withLock { $0 = true }
                return true
            }
            var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&request, 1, 0) > 0
        }
        #expect(sawChild.seen.withLock { $0 }, "no child process encoded the \(format) (disk cache: \(diskCache))")
        shutdown(client.fd, Int32(SHUT_RDWR))
        let reaped = await eventually(timeout: .seconds(60)) { Self.children(of: pid).isEmpty }
        #expect(reaped, "children left: \(Self.children(of: pid))")
        let cheap = "http://127.0.0.1:\(port)/insecure/plain/\(origin.baseURL)/small.png@png"
        let freed = await eventually(timeout: .seconds(60)) {
            (try? await runBlocking { String(decoding: try TestProcesses.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "60", cheap]), as: UTF8.self) })
                == "200"
        }
        #expect(freed)
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    /// The HTTP status `curl` gets for `url` (empty when it cannot connect).
    static func status(_ url: String) -> String {
        String(decoding: (try? TestProcesses.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "60", url])) ?? Data(), as: UTF8.self)
    }

    /// The process IDs of `pid`'s children, from every thread's /proc list.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

    @Test("Working memory: a request estimated over --max-working-memory is a 503 naming nothing of the server; the log names the flag")
    func workingMemoryLimit() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        origin.serveBytes("/pattern.png", TestPNGWriter.png(width: 500, height: 500, rgba: TestPNGWriter.pattern(width: 500, height: 500, alpha: false), alpha: false), contentType: "image/png")
        let server = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--allow-private-sources", "--no-cache", "--max-working-memory", "50000000",
        ])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let base = "http://127.0.0.1:\(port)/insecure"
        let answer = { (url: String) in
            try await runBlocking { String(decoding: try TestProcesses.run("/usr/bin/curl", ["-s", "-w", " %{http_code}", "-m", "30", url]), as: UTF8.self) }
        }
        // 3000×3000 WebP: 9 MP at about 18 bytes a pixel, three times the budget.
        #expect(
            try await answer("\(base)/rs:force:3000:3000/el:1/plain/\(origin.baseURL)/pattern.png@webp")
                == "the server has not enough memory for this image; try again later\n 503")
        #expect(try await answer("\(base)/rs:fit:16:16/plain/\(origin.baseURL)/pattern.png@png").hasSuffix(" 200"))
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
        #expect(server.stderr.contains("over --max-working-memory"), "\(server.stderr)")
    }

    @Test("Work stops at its 503: with one worker, a 50 MP WebP past --request-timeout frees the worker at once for the next request")
    func workStopsAtDeadline() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        origin.serveBytes("/pattern.png", TestPNGWriter.png(width: 500, height: 500, rgba: TestPNGWriter.pattern(width: 500, height: 500, alpha: false), alpha: false), contentType: "image/png")
        let server = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--workers", "1", "--queue", "4", "--request-timeout", "3", "--no-cache",
        ])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let base = "http://127.0.0.1:\(port)/insecure"
        let heavy = "\(base)/rs:force:16383:3051:1/q:5/plain/\(origin.baseURL)/pattern.png@webp"
        let cheap = "\(base)/rs:fit:16:16/plain/\(origin.baseURL)/pattern.png@png"
        #expect(try await runBlocking { Self.status(heavy) } == "503")
        // The worker is let go once the upscale or the encode sees the cancellation: at once,
        // not after the whole 50 MP upscale and encode (tens of seconds of CPU).
        // Free once a cheap request is answered within its own deadline (a busy worker makes it 503).
        let elapsed = try await timeUntil { Self.status(cheap) == "200" }
        // Bounded loosely: the suite shares two cores with every other test; the work it stops
        // takes tens of seconds.
        #expect(elapsed.map { $0 < .seconds(8) } == true, "the worker was busy \(elapsed.map { "\($0)" } ?? "60 s") after the 503")
        #expect(try await runBlocking { Self.status(cheap) } == "200")
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }
}

/// Whether something was seen, set by one closure and read by the test.
private final class SeenFlag: Sendable {
    let seen = Mutex(false)
}
