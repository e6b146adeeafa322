import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Ready-made routes for the answers a loader must cope with. Each replaces whatever `path` served
/// before; `route(_:_:)` takes a handler of your own for anything else.
extension TestHTTPServer {
    /// Answers 200 with `data` and a correct `Content-Length`.
    public func serveBytes(_ path: String, _ data: Data, contentType: String = "application/octet-stream") {
        route(path) { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": contentType], body: data)
        }
    }

    /// Answers 200 with `data` (announced by `Content-Length`) sent in `chunks` pieces, `interval`
    /// apart, so a loader sees several progress steps. Stops early when the client goes away or the
    /// server stops.
    public func serveSlowBody(
        _ path: String, _ data: Data, chunks: Int = 8, interval: Duration = .milliseconds(30),
        contentType: String = "application/octet-stream"
    ) {
        let pieces = max(1, min(chunks, data.count))
        let pause = UInt32(max(0, interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
        route(path) { [self] _, connection in
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(data.count)\r\n\r\n") else { return }
            let step = (data.count + pieces - 1) / pieces
            var offset = 0
            while offset < data.count {
                if offset > 0 { usleep(pause) }
                guard !isStopped, connection.write(data[offset..<min(offset + step, data.count)]) else { return }
                offset += step
            }
        }
    }

    /// Reads the request and never answers, until the client closes the connection or the server
    /// stops: the case a loader's cancellation and timeouts exist for.
    public func serveNeverAnswer(_ path: String) {
        route(path) { _, connection in
            connection.waitUntilClientCloses()
            connection.closeIfOpen()
        }
    }

    /// Answers `status` with a short text body (`Content-Type: text/plain`).
    public func serveStatus(_ path: String, _ status: Int, headers: [String: String] = [:]) {
        route(path) { _, connection in
            var all = headers
            all["Content-Type"] = all["Content-Type"] ?? "text/plain"
            connection.respond(status: status, headers: all, body: Data("HTTP \(status) from the conformance server".utf8))
        }
    }
}
