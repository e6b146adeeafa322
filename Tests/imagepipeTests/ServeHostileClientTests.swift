import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve` against clients that try to hold it: each attack runs against a real server
/// process on loopback, bounded in count and time.
@Suite("imagepipe serve under hostile clients", .dedicatedThreads)
struct ServeHostileClientTests {
    /// A loopback connection to `port`, or nil when it cannot be made; blocking, with `timeout`
    /// seconds on reads.
    static func connection(port: Int, timeout: Int = 10) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ text: String, to fd: Int32) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    @Test("Slowloris: connections sending half a header are closed at --idle-timeout, and /health answers meanwhile past --max-connections")
    func slowloris() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--quiet", "--idle-timeout", "1", "--max-connections", "16"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        // 40 connections, each half a request head, more than the server takes at once.
        let held = (0..<40).compactMap { _ in Self.connection(port: port, timeout: 10) }
        #expect(held.count == 40)
        for fd in held { Self.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", to: fd) }
        let start = ContinuousClock.now
        // /health, asked while they are open, is answered once the idle timeout frees a slot.
        let health = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "-m", "20", "http://127.0.0.1:\(port)/health"]) }
        #expect(String(decoding: health, as: UTF8.self) == "ok\n")
        #expect(ContinuousClock.now - start < .seconds(10), "answered after \(ContinuousClock.now - start)")
        // Every slow connection the server took is closed by it: a read ends (EOF or reset) well
        // before the 10 s read limit of this side.
        let closed = try await runBlocking {
            held.map { fd -> Bool in
                var byte: UInt8 = 0
                let n = recv(fd, &byte, 1, 0)
                close(fd)
                return n == 0 || (n < 0 && errno == ECONNRESET)
            }
        }
        #expect(closed.filter { $0 }.count == 40, "\(closed.filter { !$0 }.count) still open")
        #expect(ContinuousClock.now - start < .seconds(15))
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }
}
