import Foundation
import LoaderHTTP
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The routes every LoaderHTTP test can use, good and faulty, on a fresh server.
enum FaultRoutes {
    /// 64 KiB of not-quite-random bytes standing in for an image.
    static let image = Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })

    static func server() throws -> TestHTTPServer {
        let server = try TestHTTPServer()
        let png = ["Content-Type": "image/png"]
        server.route("/image.png") { _, c in c.respond(status: 200, headers: png, body: image) }
        server.route("/slow.png") { _, c in
            usleep(400_000)
            c.respond(status: 200, headers: png, body: image)
        }
        server.route("/empty.png") { _, c in c.respond(status: 200, headers: png) }
        server.route("/headers") { request, c in
            let body = try! JSONSerialization.data(withJSONObject: request.headers, options: [.sortedKeys])
            c.respond(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
        server.route("/echo") { request, c in
            c.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data((request.method + " ").utf8) + request.body)
        }
        server.route("/trickle") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n")
            for _ in 0..<1000 {
                guard c.write("x") else { return }
                usleep(200_000)
            }
        }
        server.route("/hang") { _, c in
            usleep(3_000_000)
            c.respond(status: 200, headers: png, body: image)
        }
        server.route("/reset") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n")
            c.write(image.prefix(1000))
            usleep(50_000)
            c.reset()
        }
        server.route("/short-body") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n")
            c.write(image.prefix(500))
            c.closeIfOpen()
        }
        server.route("/long-body") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 10\r\n\r\n")
            c.write(image.prefix(100))
            c.closeIfOpen()
        }
        server.route("/endless") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n")
            while c.write(image) {}
            c.closeIfOpen()
        }
        server.route("/huge-length") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 50000000\r\n\r\n")
            c.write(image.prefix(1000))
            usleep(5_000_000)
            c.closeIfOpen()
        }
        server.route("/huge-header-line") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Padding: \(String(repeating: "a", count: 200_000))\r\n")
            c.write("Content-Length: 10\r\n\r\n")
            c.write(image.prefix(10))
        }
        server.route("/huge-headers") { _, c in
            let lines = (0..<400).map { "X-Padding-\($0): \(String(repeating: "a", count: 1000))\r\n" }.joined()
            c.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\(lines)Content-Length: 10\r\n\r\n")
            c.write(image.prefix(10))
        }
        server.route("/loop") { _, c in c.respond(status: 301, headers: ["Location": "/loop"]) }
        server.route("/to-file") { _, c in c.respond(status: 302, headers: ["Location": "file:///etc/passwd"]) }
        server.route("/redirect") { _, c in c.respond(status: 302, headers: ["Location": "/image.png"]) }
        server.route("/404") { _, c in c.respond(status: 404, body: Data("not found".utf8)) }
        server.route("/500") { _, c in c.respond(status: 500, body: Data("boom".utf8)) }
        server.route("/429") { _, c in c.respond(status: 429, headers: ["Retry-After": "0"], body: Data("slow down".utf8)) }
        server.route("/text") { _, c in c.respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data("<html>".utf8)) }
        server.route("/gzip") { request, c in
            guard request.headers["accept-encoding"]?.contains("gzip") == true, let packed = try? TestProcesses.gzip(image) else {
                c.respond(status: 406)
                return
            }
            c.respond(status: 200, headers: ["Content-Type": "image/png", "Content-Encoding": "gzip"], body: packed)
        }
        server.route("/etag") { request, c in
            if request.headers["if-none-match"] == "\"v1\"" {
                c.respond(status: 304, headers: ["ETag": "\"v1\""])
            } else {
                c.respond(status: 200, headers: ["Content-Type": "image/png", "ETag": "\"v1\""], body: image)
            }
        }
        server.route("/set-cookie") { _, c in
            c.respond(status: 200, headers: ["Set-Cookie": "session=abc123; Path=/", "Content-Type": "image/png"], body: image)
        }
        server.route("/auth") { request, c in
            let expected = "Basic " + Data("user:secret".utf8).base64EncodedString()
            if request.headers["authorization"] == expected {
                c.respond(status: 200, headers: png, body: image)
            } else {
                c.respond(status: 401, headers: ["WWW-Authenticate": "Basic realm=\"test\""])
            }
        }
        server.route("/base64") { _, c in
            c.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data(image.base64EncodedString().utf8))
        }
        return server
    }

    /// Serves `path` with `failures` bad answers (`status`, plus `headers`) before a good one.
    static func flaky(_ server: TestHTTPServer, _ path: String, failures: Int, status: Int, headers: [String: String] = [:]) {
        let served = Mutex(0)
        server.route(path) { _, c in
            let n = served.withLock { n in
                n += 1
                return n
            }
            if n <= failures {
                c.respond(status: status, headers: headers, body: Data("try again".utf8))
            } else {
                c.respond(status: 200, headers: ["Content-Type": "image/png"], body: image)
            }
        }
    }

    /// Limits a working test never reaches, even on a loaded machine where a gated route waits for
    /// its test to open the gate; tests of the limits themselves set short ones.
    static func testConfiguration() -> HTTPLoaderConfiguration {
        var config = HTTPLoaderConfiguration()
        config.timeout = 30
        config.connectTimeout = 10
        config.lowSpeedLimit = 100
        config.lowSpeedTime = 10
        return config
    }

    /// `testConfiguration()` with the slowest transfer accepted for one second, for `/trickle`.
    static func trickleConfiguration() -> HTTPLoaderConfiguration {
        var config = testConfiguration()
        config.lowSpeedTime = 1
        return config
    }
}

/// The error a load ends with, or nil when it succeeded.
func loadError(
    _ loader: HTTPLoader, _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()
) async -> ImagePipeError? {
    do {
        _ = try await loader.loadTyped(url, options: options, context: context)
        return nil
    } catch {
        return error
    }
}
