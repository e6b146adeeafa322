import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A request as the test server read it. Header names are lowercased.
public struct TestHTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var headers: [String: String]
    public var body: Data
}

/// A small HTTP/1.1 server on 127.0.0.1 for loader tests, in the kit so that authors of HTTP
/// loaders can check theirs against the same server `LoaderConformance.checkHTTP` uses.
///
/// POSIX sockets, one thread per connection, keep-alive, and handlers that may misbehave on purpose
/// (trickle, reset, lie about `Content-Length`, never end). Counts requests per path.
///
/// ```swift
/// let server = try TestHTTPServer()          // listening on 127.0.0.1, an ephemeral port
/// defer { server.stop() }
/// server.serveBytes("/a.png", pngData)       // or route(_:_:) for a handler of your own
/// let result = try await myLoader.load(server.url("/a.png"), options: [], context: ImageContext(), progress: nil)
/// #expect(server.requestCount("/a.png") == 1)
/// ```
/// Handlers run on the connection's own thread, so they may block (sleep, wait) without touching
/// Swift's cooperative pool.
public final class TestHTTPServer: Sendable {
    public typealias Handler = @Sendable (TestHTTPRequest, TestHTTPConnection) -> Void

    public let port: UInt16
    private let listener: Int32
    private let routes = Mutex<[String: Handler]>([:])
    private let counters = Mutex<[String: Int]>([:])
    private let connections = Mutex<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)

    /// Starts listening on 127.0.0.1 at a port the system picks (`port`), with no routes: every
    /// path answers 404 until routed.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            close(fd)
            throw TestServerError.socket(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "TestHTTPServer.accept"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The server's URL for `path` (which starts with `/` and may carry a query).
    public func url(_ path: String) -> URL { URL(string: baseURL + path)! }

    /// Serves `path` (without query) with `handler`.
    public func route(_ path: String, _ handler: @escaping Handler) {
        routes.withLock { $0[path] = handler }
    }

    /// Requests received for `path` so far.
    public func requestCount(_ path: String) -> Int { counters.withLock { $0[path] ?? 0 } }

    /// Connections accepted since the start: how well clients reuse connections.
    public var acceptedConnectionCount: Int { accepted.load(ordering: .relaxed) }

    /// Connections currently open on the server side.
    public var openConnectionCount: Int { connections.withLock { $0.count } }

    /// True once `stop()` was called; long-running handlers poll it to end.
    public var isStopped: Bool { stopping.load(ordering: .acquiring) }

    /// Stops accepting, and shuts every open connection so blocked handlers and clients return.
    /// Safe to call more than once.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        connections.withLock { for fd in $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .acquiring) {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            // Not inherited by the openssl and gzip processes other tests start.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            // A client that never sends must not keep a thread forever. `stop()` ends every
            // connection at once, so this only frees a server left running; it is long so that a
            // loaded machine's pauses between one client's requests never close a kept-alive one.
            var timeout = timeval(tv_sec: 120, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            accepted.add(1, ordering: .relaxed)
            connections.withLock { _ = $0.insert(fd) }
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        let connection = TestHTTPConnection(fd: fd)
        defer {
            connections.withLock { _ = $0.remove(fd) }
            connection.closeIfOpen()
        }
        while !stopping.load(ordering: .relaxed), let request = connection.readRequest() {
            counters.withLock { $0[request.path, default: 0] += 1 }
            let handler = routes.withLock { $0[request.path] }
            if let handler {
                handler(request, connection)
            } else {
                connection.respond(status: 404, body: Data("no route \(request.path)".utf8))
            }
            if connection.isClosed || request.headers["connection"]?.lowercased() == "close" { return }
        }
    }
}

/// Why a test server could not start.
public enum TestServerError: Error, Sendable {
    case socket(Int32)
    case process(String)
}
