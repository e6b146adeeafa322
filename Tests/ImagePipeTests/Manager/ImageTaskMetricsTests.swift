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

    /// TestCoder whose decodes of `slow` hold their worker until `release` opens, counted in
    /// `slowStarted`; others take no time.
    struct SlowCoder: ImageCoder {
        let base = TestCoder()
        let slow: Data
        let slowStarted = Counter()
        let release = Gate()
        func canDecode(_ data: Data) -> Bool { base.canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
            if data == slow {
                slowStarted.increment()
                release.pass("slow")
            }
            return try base.decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
        func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
            try base.encode(image, as: format, options: options)
        }
    }

    @Test("With one CPU worker, a decode queued behind a slow one reports its wait apart from its own quick decode")
    func decodeWaitApart() async throws {
        let (slow, quick) = (TestCoder.sample(width: 40, height: 20), TestCoder.sample(width: 20, height: 10))
        let coder = SlowCoder(slow: slow)
        let coders = ImageCodersManager(coders: [coder])
        let loader = TestLoader.scripted(delay: .zero)
        let manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders, cpuConcurrency: 1)
        let (slowURL, quickURL) = (URL(string: "test://img/slow.timg")!, URL(string: "test://img/quick.timg")!)
        loader.answer(slowURL.absoluteString, with: .data(slow))
        loader.answer(quickURL.absoluteString, with: .data(quick))
        let first = Task { try await manager.loadImage(with: slowURL) }
        // The slow decode holds the only worker; the quick one queues behind it, and is held there
        // 200 ms more before the slow one lets go: its wait is at least that, whatever the load.
        #expect(await eventually { coder.slowStarted.count > 0 })
        let second = Task { try await manager.loadImage(with: quickURL) }
        #expect(await eventually { manager.cpu.waitingCount == 1 })
        try await Task.sleep(for: .milliseconds(200))
        coder.release.open()
        let queued = try #require(try await second.value.metrics)
        _ = try await first.value
        let wait = try #require(queued.decodeWaitDuration), decode = try #require(queued.decodeDuration)
        // Before, the wait was counted in decodeDuration.
        #expect(wait >= .milliseconds(200), "wait \(wait)")
        #expect(decode < wait, "decode \(decode)")
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
