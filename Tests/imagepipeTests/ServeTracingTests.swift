import Foundation
import PipelineConformance
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("imagepipe serve --otel-endpoint")
struct ServeTracingTests {
    /// With a disk cache the source goes through the manager (its load span and steps); without
    /// one the server fetches, decodes, transforms and encodes it itself.
    @Test("one request's spans reach an OTLP/HTTP collector as one tree under the client's traceparent", arguments: [true, false])
    func spanTree(diskCache: Bool) async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.server.stop() }
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        origin.serveBytes("/a.png", TestPNGWriter.png(width: 64, height: 48, rgba: TestPNGWriter.pattern(width: 64, height: 48, alpha: false), alpha: false), contentType: "image/png")
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("otel-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let server = try ServeProcess(
            [
                "--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--otel-endpoint", receiver.endpoint,
            ] + (diskCache ? ["--cache-dir", cache.path] : ["--no-cache"]))
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736", parentID = "00f067aa0ba902b7"
        let url = "http://127.0.0.1:\(port)/insecure/rs:fit:16:16/plain/\(origin.baseURL)/a.png@png"
        let status = try await runBlocking {
            String(
                decoding: try TestProcesses.run(
                    "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "traceparent: 00-\(traceID)-\(parentID)-01", url]),
                as: UTF8.self)
        }
        #expect(status == "200")
        // The exporter flushes what is left when the server stops.
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
        let spans = try receiver.spans()
        let names = spans.map(\.name)
        let request = try #require(spans.first { $0.name == "GET image" }, "\(names) \(server.stderr)")
        #expect(request.traceID == traceID && request.parentSpanID == parentID, "continued from the client's traceparent")
        #expect(request.kind == 2, "a server span")
        #expect(request.attributes["http.response.status_code"] == "200")
        #expect(request.attributes["url.path"]?.hasPrefix("/*/rs:fit:16:16/plain/") == true, "the signature is never exported")
        #expect(request.service == "imagepipe")
        if diskCache {
            let load = try #require(spans.first { $0.name == "ImagePipe.load" }, "\(names)")
            #expect(load.parentSpanID == request.spanID)
        }
        let steps =
            diskCache
            ? ["ImagePipe.cache.query", "ImagePipe.fetch", "ImagePipe.decode", "ImagePipe.transform", "ImageServer.encode"]
            : ["ImageServer.fetch", "ImageServer.decode", "ImageServer.transform", "ImageServer.encode"]
        for name in steps {
            #expect(names.contains(name), "\(name) missing from \(names)")
        }
        let encode = try #require(spans.first { $0.name == "ImageServer.encode" }, "\(names)")
        #expect(encode.attributes["imagepipe.image.format"] == "png", "\(encode.attributes)")
        #expect(spans.allSatisfy { $0.traceID == traceID }, "\(spans.map { ($0.name, $0.traceID) })")
        // Every span hangs off the request: its ancestors lead to the request span.
        let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        for span in spans where span.spanID != request.spanID {
            var current = span
            var steps = 0
            while current.parentSpanID != request.spanID, let parent = byID[current.parentSpanID], steps < 10 {
                current = parent
                steps += 1
            }
            #expect(current.parentSpanID == request.spanID, "\(span.name) is not under the request span")
        }
    }
}
