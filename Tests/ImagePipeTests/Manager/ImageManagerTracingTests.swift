import Foundation
import InMemoryTracing
import TestSupport
import Testing
import Tracing

@testable import ImagePipe
@testable import PipelineCore

@Suite("The spans of a load")
struct ImageManagerTracingTests {
    let url = URL(string: "test://img/photo.timg")!

    func fixture(_ tracer: InMemoryTracer) -> ManagerFixture {
        let f = ManagerFixture(delay: .zero)
        f.manager.settings.tracer = tracer
        return f
    }

    @Test("a load is one span with children for the cache query, the fetch, the decode and the transform")
    func spanTree() async throws {
        let tracer = InMemoryTracer()
        let f = fixture(tracer)
        f.serve(url.absoluteString, width: 40, height: 20)
        let transformer = CountingInvertTransformer()
        _ = try await f.manager.loadImage(with: url, context: ImageContext().with(.imageTransformer, transformer))
        let spans = tracer.finishedSpans
        let load = try #require(spans.first { $0.operationName == "ImagePipe.load" }, "\(spans.map(\.operationName))")
        #expect(load.parentSpanID == nil)
        #expect(load.attributes["url.full"]?.toSpanAttribute() == .string(url.absoluteString))
        #expect(load.attributes["imagepipe.cache.tier"]?.toSpanAttribute() == .string("miss"))
        #expect(load.attributes["imagepipe.image.width"]?.toSpanAttribute() == .int64(40))
        let children = spans.filter { $0.parentSpanID == load.spanID }.map(\.operationName)
        #expect(children.contains("ImagePipe.cache.query"))
        #expect(children.contains("ImagePipe.transform"))
        // The fetch and the decode run inside the shared decode and download stages, started by
        // this load, so they are its descendants.
        let fetch = try #require(spans.first { $0.operationName == "ImagePipe.fetch" })
        let decode = try #require(spans.first { $0.operationName == "ImagePipe.decode" })
        #expect(fetch.traceID == load.traceID && decode.traceID == load.traceID)
        #expect(fetch.attributes["imagepipe.fetch.bytes"]?.toSpanAttribute() == .int64(Int64(TestCoder.sample(width: 40, height: 20).count)))
        #expect(decode.attributes["imagepipe.image.format"]?.toSpanAttribute() == .string("timg"))
        #expect(spans.allSatisfy { $0.traceID == load.traceID })
    }

    @Test("a failed load's span records the error; a memory hit makes no span")
    func failureAndMemoryHit() async throws {
        let tracer = InMemoryTracer()
        let f = fixture(tracer)
        f.loader.answer(url.absoluteString, with: .error(.stubBadStatus(404)))
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: url) }
        let failed = try #require(tracer.finishedSpans.first { $0.operationName == "ImagePipe.load" })
        #expect(failed.status?.code == .error)
        #expect(failed.errors.count == 1)

        // A memory hit answered synchronously (the default cache can) makes no span.
        let temp = TemporaryDirectory()
        let coders = ImageCodersManager(coders: [TestCoder()])
        let cache = DefaultImageCache(directory: temp.url, coders: coders)
        let manager = ImageManager(cache: cache, loader: f.loader, coders: coders)
        manager.settings.tracer = tracer
        let other = URL(string: "test://img/other.timg")!
        f.serve(other.absoluteString)
        _ = try await manager.loadImage(with: other)
        tracer.clearFinishedSpans()
        let hit = try await manager.loadImage(with: other)
        #expect(hit.cacheType == ImageCacheType.memory)
        #expect(tracer.finishedSpans.isEmpty)
    }
}
