import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Per-request metrics on ImageResult")
struct ImageTaskMetricsTests {
    let url = URL(string: "test://img/photo.timg")!

    @Test("A downloaded result says where its time went: the query, the load with its bytes, the decode")
    func loaded() async throws {
        let f = ManagerFixture(delay: .milliseconds(40))
        let data = f.serve(url.absoluteString)
        let result = try await f.manager.loadImage(with: url)
        let metrics = try #require(result.metrics)
        #expect(metrics.cacheType == .none && !metrics.isCoalesced)
        #expect(metrics.loadedBytes == data.count)
        let load = try #require(metrics.loadDuration)
        let decode = try #require(metrics.decodeDuration)
        #expect(metrics.cacheQueryDuration != nil)
        // The loader sleeps 40 ms in all: a lower bound, whatever the machine's load.
        #expect(load >= .milliseconds(40))
        #expect(metrics.totalDuration >= load + decode)
        #expect(metrics.transformDuration == nil && metrics.storeDuration == nil)
    }

    /// TestCoder taking 60 ms a decode.
    struct SlowCoder: ImageCoder {
        let base = TestCoder()
        func canDecode(_ data: Data) -> Bool { base.canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
            Thread.sleep(forTimeInterval: 0.06)
            return try base.decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
        func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
            try base.encode(image, as: format, options: options)
        }
    }

    @Test("With one CPU worker, the second of two decodes reports its wait for the worker apart from its decode")
    func decodeWaitApart() async throws {
        let coders = ImageCodersManager(coders: [SlowCoder()])
        let loader = TestLoader.scripted(delay: .zero)
        let manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders, cpuConcurrency: 1)
        let urls = (0..<2).map { URL(string: "test://img/photo\($0).timg")! }
        for url in urls { loader.answer(url.absoluteString, with: .data(TestCoder.sample())) }
        let metrics = try await withThrowingTaskGroup(of: ImageTaskMetrics?.self) { group in
            for url in urls { group.addTask { try await manager.loadImage(with: url).metrics } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let stages = try metrics.map { (wait: try #require($0?.decodeWaitDuration), decode: try #require($0?.decodeDuration)) }
        let waiter = try #require(stages.max { $0.wait < $1.wait })
        // It waited for the other's 60 ms; its decode is its own 60 ms, not both (120 and more).
        #expect(waiter.wait >= .milliseconds(55), "\(stages)")
        #expect(waiter.decode >= .milliseconds(60) && waiter.decode < .milliseconds(119), "\(stages)")
    }

    @Test("Waiting for the stores and running a transformer each add their stage")
    func storeAndTransform() async throws {
        let f = ManagerFixture(delay: .zero)
        f.serve(url.absoluteString)
        let context = ImageContext().with(.imageTransformer, CountingInvertTransformer())
        let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(result.metrics?.transformDuration != nil)
        #expect(result.metrics?.storeDuration != nil)
    }

    @Test("A memory hit reports memory and no stage; a disk hit reports disk and its query, no load")
    func hits() async throws {
        let f = ManagerFixture(delay: .zero)
        f.cache.putOnDisk(TestCoder.sample(), key: url.absoluteString)
        let disk = try #require(try await f.manager.loadImage(with: url).metrics)
        #expect(disk.cacheType == .disk && disk.cacheQueryDuration != nil)
        #expect(disk.loadDuration == nil && disk.loadedBytes == nil && disk.decodeDuration == nil)
        let memory = try #require(try await f.manager.loadImage(with: url).metrics)
        #expect(memory.cacheType == .memory)
        #expect(memory.loadDuration == nil && memory.decodeDuration == nil && !memory.isCoalesced)
    }

    @Test("The callback form's final result carries the metrics too")
    func callbackForm() async throws {
        let f = ManagerFixture(delay: .zero)
        f.serve(url.absoluteString)
        let result = try await withCheckedThrowingContinuation { continuation in
            f.manager.loadImage(with: url) { continuation.resume(with: $0) }
        }
        #expect(result.metrics?.loadDuration != nil)
    }
}
