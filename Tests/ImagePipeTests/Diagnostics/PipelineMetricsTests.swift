import CoreMetrics
import Foundation
import MetricsTestKit
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Pipeline metrics: counters and timers through swift-metrics")
struct PipelineMetricsTests {
    let url = URL(string: "test://img/photo.timg")!
    let metrics = TestMetrics()

    /// A manager over test doubles that records into `metrics`.
    func fixture() -> ManagerFixture {
        let f = ManagerFixture(delay: .zero)
        f.manager.settings.metrics = PipelineMetrics(factory: metrics)
        return f
    }

    func lookups(_ tier: String, _ result: String) -> Int64 {
        metrics.counterTotal(label: "imagepipe_cache_lookups_total", dimensions: [("tier", tier), ("result", result)])
    }

    func timings(_ label: String, _ dimensions: [(String, String)] = []) -> Int {
        metrics.timers(label: label, dimensions: dimensions).reduce(0) { $0 + $1.values.count }
    }

    @Test("A first load counts a memory and a disk miss, one load with its bytes and a decode; the second a memory hit")
    func missThenHit() async throws {
        let f = fixture()
        let data = f.serve(url.absoluteString)
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
        #expect(lookups("memory", "miss") == 1 && lookups("disk", "miss") == 1)
        #expect(lookups("memory", "hit") == 0 && lookups("disk", "hit") == 0)
        #expect(metrics.counterTotal(label: "imagepipe_loads_total") == 1)
        #expect(metrics.counterTotal(label: "imagepipe_loaded_bytes_total") == Int64(data.count))
        #expect(timings("imagepipe_decode_duration_seconds", [("source", "loader")]) == 1)

        _ = try await f.manager.loadImage(with: url)
        #expect(lookups("memory", "hit") == 1)
        #expect(metrics.counterTotal(label: "imagepipe_loads_total") == 1, "a hit loads nothing")
    }

    @Test("Bytes found on disk count a memory miss and a disk hit, and no load")
    func diskHit() async throws {
        let f = fixture()
        f.cache.putOnDisk(TestCoder.sample(), key: url.absoluteString)
        let result = try await f.manager.loadImage(with: url)
        #expect(result.cacheType == .disk)
        #expect(lookups("memory", "miss") == 1 && lookups("disk", "hit") == 1 && lookups("disk", "miss") == 0)
        #expect(metrics.counterTotal(label: "imagepipe_loads_total") == 0)
    }

    @Test("A transformed load times the transform once")
    func transformTimed() async throws {
        let f = fixture()
        f.serve(url.absoluteString)
        let context = ImageContext().with(.imageTransformer, CountingInvertTransformer())
        _ = try await f.manager.loadImage(with: url, context: context)
        #expect(timings("imagepipe_transform_duration_seconds") == 1)
    }

    @Test("Failures are counted by kind: the case, with the limit's or loader failure's name")
    func failuresByKind() async throws {
        let f = fixture()
        f.loader.answer(url.absoluteString, with: .error(.stubBadStatus(404)))
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: url) }
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: nil) }
        #expect(metrics.counterTotal(label: "imagepipe_failures_total", dimensions: [("error", "loadFailed.httpStatus")]) == 1)
        #expect(metrics.counterTotal(label: "imagepipe_failures_total", dimensions: [("error", "invalidURL")]) == 1)
        // The 404 blocked the URL: the next attempt is refused before it starts, and counted as such.
        await #expect(throws: ImagePipeError.blockedURL(url.absoluteString)) { try await f.manager.loadImage(with: url) }
        #expect(metrics.counterTotal(label: "imagepipe_failures_total", dimensions: [("error", "blockedURL")]) == 1)
    }

    @Test("Five identical loads at once make one load; four join it, and their results say so")
    func coalescedJoins() async throws {
        let gate = Gate()
        let gated = URL(string: "gated://img/photo.timg")!
        let fixture = GatedFixture()
        fixture.serve(gated, width: 9, gate: gate)
        fixture.manager.settings.metrics = PipelineMetrics(factory: metrics)
        let tasks = (0..<5).map { _ in fixture.manager.imageTask(with: gated) }
        // Open only once all five wait on the one decode (which waits on the one download).
        try #require(await eventually { fixture.manager.decodes.joinerCount == 5 })
        gate.open()
        var results: [ImageResult] = []
        for task in tasks { results.append(try await task.result()) }
        #expect(metrics.counterTotal(label: "imagepipe_loads_total") == 1)
        #expect(metrics.counterTotal(label: "imagepipe_coalesced_joins_total", dimensions: [("stage", "decode")]) == 4)
        #expect(results.filter { $0.metrics?.isCoalesced == true }.count == 4)
        #expect(results.allSatisfy { $0.metrics?.loadedBytes == TestCoder.sample(width: 9, height: 9).count })
    }

    @Test("Error kinds name the case, and the limit or loader failure without the message")
    func errorKinds() {
        #expect(ImagePipeError.cancelled.kind == "cancelled")
        #expect(ImagePipeError.limitExceeded(.pixels, value: 10, maximum: 5).kind == "limitExceeded.pixels")
        #expect(ImagePipeError.badImageData(reason: "truncated at byte 12").kind == "badImageData")
        #expect(ImagePipeError.stubBadStatus(500).kind == "loadFailed.httpStatus")
    }
}
