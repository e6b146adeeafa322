import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection, handed to route handlers to answer (or misbehave) on. Writes are
/// blocking and return false once the client has gone, so a handler's loop can end on that.
public final class TestHTTPConnection: Sendable {
    private let fd: Int32
    private let closed = Atomic<Bool>(false)
    /// Bytes read past the current request (pipelined requests).
    private let buffer = Mutex<[UInt8]>([])

    init(fd: Int32) { self.fd = fd }

    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Writes everything; false once the client has gone.
    @discardableResult
    public func write(_ data: Data) -> Bool {
        guard !isClosed else { return false }
        return data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(Data(text.utf8)) }

    /// A complete response with a correct `Content-Length`.
    public func respond(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        var all = headers
        if all.keys.first(where: { $0.lowercased() == "content-length" }) == nil {
            all["Content-Length"] = String(body.count)
        }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        write(Data(head.utf8) + body)
    }

    /// Closes with a TCP reset (SO_LINGER 0) instead of an orderly FIN.
    public func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        closeIfOpen()
    }

    public func closeIfOpen() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(fd)
    }

    /// Blocks until the client closes the connection (or the server stops), without answering:
    /// what a server that never responds looks like to a loader. Checks every 50 ms.
    public func waitUntilClientCloses() {
        while !isClosed {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EINTR) { return }
            // The client sent more (a pipelined request): it is still there; keep its bytes unread.
            if peeked > 0 { usleep(50_000) }
        }
    }

    func readRequest() -> TestHTTPRequest? {
        guard let headEnd = readUntilHeadEnd() else { return nil }
        let headBytes = buffer.withLock { buffer in
            defer { buffer.removeFirst(headEnd + 4) }
            return Array(buffer[0..<headEnd])
        }
        let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = String(parts[1])
        let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let length = min(Int(headers["content-length"] ?? "0") ?? 0, 1 << 20)
        guard let body = readBody(length) else { return nil }
        return TestHTTPRequest(
            method: String(parts[0]), path: String(pathPart[0]),
            query: pathPart.count > 1 ? String(pathPart[1]) : "", headers: headers, body: body)
    }

    private func readUntilHeadEnd() -> Int? {
        while true {
            let found: Int? = buffer.withLock { buffer in
                guard buffer.count >= 4 else { return nil }
                for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    return i
                }
                return nil
            }
            if let found { return found }
            guard fill() else { return nil }
        }
    }

    private func readBody(_ length: Int) -> Data? {
        while buffer.withLock({ $0.count }) < length {
            guard fill() else { return nil }
        }
        return buffer.withLock { buffer in
            defer { buffer.removeFirst(length) }
            return Data(buffer[0..<length])
        }
    }

    private func fill() -> Bool {
        guard !isClosed, buffer.withLock({ $0.count }) < 1 << 20 else { return false }
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.withLock { $0.append(contentsOf: chunk[0..<count]) }
        return true
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
