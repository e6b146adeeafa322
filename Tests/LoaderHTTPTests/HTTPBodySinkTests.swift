import Foundation
import LoaderHTTP
import PipelineConformance
import PipelineCore
import Synchronization
import Testing

@Suite("HTTPLoader: a body sink")
struct HTTPBodySinkTests {
    /// What a sink was given.
    final class Taken: Sendable {
        let bytes = Mutex(Data())
    }

    /// A context with a body sink, and what the sink was given.
    static func sinking() -> (ImageContext, Taken) {
        let taken = Taken()
        var context = ImageContext()
        context[.bodySink] = HTTPBodySink { bytes in taken.bytes.withLock { $0.append(contentsOf: bytes) } }
        return (context, taken)
    }

    @Test("the sink takes the body as it comes and the result holds none of it")
    func bodyGoesToSink() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let (context, taken) = Self.sinking()
        let result = try await HTTPLoader(configuration: FaultRoutes.testConfiguration()).loadTyped(server.url("/image.png"), context: context)
        #expect(result.data.isEmpty)
        #expect(result.httpResponse?.statusCode == 200)
        #expect(taken.bytes.withLock { $0 } == FaultRoutes.image)
    }

    @Test("maxResponseBytes still bounds what the sink is given")
    func bounded() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        server.route("/unannounced") { _, connection in
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n") else { return }
            _ = connection.write(FaultRoutes.image)
            connection.closeIfOpen()
        }
        var configuration = FaultRoutes.testConfiguration()
        configuration.maxResponseBytes = 10_000
        let (context, taken) = Self.sinking()
        await #expect(throws: ImagePipeError.self) {
            _ = try await HTTPLoader(configuration: configuration).loadTyped(server.url("/unannounced"), context: context)
        }
        #expect(taken.bytes.withLock { $0.count } <= 10_000)
    }

    @Test("with a sink the loader asks for no Content-Encoding and passes the origin's bytes as sent")
    func bytesAsSent() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let encoding = Mutex<[String]>([])
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        server.route("/encoded") { request, connection in
            encoding.withLock { $0.append(request.headers["accept-encoding"] ?? "-") }
            connection.respond(status: 200, headers: ["Content-Type": "image/png", "Content-Encoding": "gzip"], body: gzip)
        }
        let (context, taken) = Self.sinking()
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        _ = try await loader.loadTyped(server.url("/encoded"), context: context)
        #expect(taken.bytes.withLock { $0 } == gzip, "not decoded")
        var asking = context
        asking[.requestModifier] = .setting(headers: ["Accept-Encoding": "br"])
        _ = try await loader.loadTyped(server.url("/encoded"), context: asking)
        #expect(encoding.withLock { $0 } == ["-", "br"])
    }
}
