import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare HTTP/1.1 client on a real loopback socket, for what a test client hides: closing the
/// connection mid-request, sending half a request, and many requests at once.
public final class RawHTTPClient: @unchecked Sendable {
    public let fd: Int32

    /// Connected to `port` on 127.0.0.1; reads give up after `readTimeout` seconds.
    public init(port: Int, readTimeout: Int = 60) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func send(get target: String) {
        send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    }

    /// Sends `text` as it is: half a request head, say.
    public func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the server closed the connection (end of file or reset) before the read timeout.
    public func waitForClose() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    /// What arrives until `enough` says it is enough (or the server closes, or the read times
    /// out): for watching an answer arrive while the server is still sending it.
    public func receive(until enough: (Data) -> Bool) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !enough(data) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// Everything until the server closes, parsed as status, headers and body.
    public func readResponse() -> (status: Int, headers: [String: String], body: Data)? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, data[end.upperBound...])
    }

    /// GET `target` and read the answer, on a thread of its own.
    public static func get(port: Int, _ target: String) async throws -> (status: Int, headers: [String: String], body: Data)? {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let client = try RawHTTPClient(port: port)
                    client.send(get: target)
                    continuation.resume(returning: client.readResponse())
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }
}
