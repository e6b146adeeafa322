import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import ImagePipeTargets
@testable import PipelineCore

/// A UI-style view: main-actor state without locks, adopting `ImageTarget` with an isolated
/// conformance, as a UIKit or GTK binding would.
@MainActor
final class MainActorView: @MainActor ImageTarget {
    var shown: [ImageResult] = []
    /// Updates that ran outside the main actor's queue.
    var offMainActor = 0
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    let indicator = RecordingIndicator()

    func display(_ image: Image?, in slot: ImageSlot) {
        shown.append(ImageResult(image: image, data: nil, cacheType: .none, url: nil))
    }

    func display(_ result: ImageResult, in slot: ImageSlot) {
        if DispatchQueue.getSpecific(key: Self.mainQueueKey) != true { offMainActor += 1 }
        shown.append(result)
    }

    var imageIndicator: (any ImageIndicator)? { indicator }

    var widths: [Int] { shown.map { $0.image?.pixelSize.width ?? 0 } }
}

/// Any global actor works the same way.
@globalActor actor RenderActor {
    static let shared = RenderActor()
}

@RenderActor
final class RenderSurface: @RenderActor ImageTarget {
    var widths: [Int] = []
    func display(_ image: Image?, in slot: ImageSlot) { widths.append(image?.pixelSize.width ?? 0) }
}

/// A manager over a real `DefaultImageCache` (whose memory answers synchronously) and a gated loader.
struct MemoryBackedFixture: SampleServing {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("target-memory-\(UUID().uuidString)")
    let loader = TestLoader(scheme: "gated", missing: .error(.stubBadStatus(404)))
    let cache: DefaultImageCache
    let manager: ImageManager
    var context: ImageContext { ImageContext().with(.imageManager, manager) }

    init() {
        let coders = ImageCodersManager(coders: [TestCoder()])
        cache = DefaultImageCache(namespace: "targets", directory: directory, coders: coders)
        manager = ImageManager(cache: cache, loader: loader, coders: coders)
    }

    /// Puts a `width`-wide image in memory under the key a request for `url` with `context` uses.
    func remember(_ url: URL, width: Int, context: ImageContext = ImageContext()) throws {
        let image = Image(try PixelBuffer(width: width, height: width, format: .rgba8))
        cache.memoryCache.set(image, forKey: manager.cacheKey(for: url, context: context), cost: width * width * 4)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite("Targets living on an actor")
@MainActor
struct ImageTargetMainActorTests {
    @Test("A @MainActor view adopts ImageTarget; the placeholder is set before setImage returns, the image later, all on the main actor")
    func mainActorView() async throws {
        let f = GatedFixture()
        let url = URL(string: "gated://main/a")!
        let gate = Gate()
        f.serve(url, width: 30, gate: gate)
        let view = MainActorView()
        let log = CompletionLog()
        let task = view.setImage(with: url, placeholder: placeholderImage, context: f.context, completed: log.handler)
        #expect(view.widths == [1], "the placeholder is shown before setImage returns")
        #expect(view.indicator.calls == ["start"])
        gate.open()
        _ = try await task?.result()
        try #require(await eventually { log.count == 1 })
        #expect(view.widths == [1, 30])
        #expect(view.offMainActor == 0)
        #expect(view.indicator.calls.last == "stop")
    }

    @Test("A memory-cache hit is shown in place of the placeholder and completes before setImage returns")
    func memoryHitBeforePlaceholder() async throws {
        let f = MemoryBackedFixture()
        defer { f.remove() }
        let url = URL(string: "gated://main/cached")!
        try f.remember(url, width: 40)
        let view = MainActorView()
        let log = CompletionLog()
        let task = view.setImage(with: url, placeholder: placeholderImage, context: f.context, completed: log.handler)
        #expect(task == nil, "nothing runs")
        #expect(view.widths == [40], "the cached image, never the placeholder")
        #expect(view.shown.first?.cacheType == .memory)
        #expect(log.count == 1)
        #expect(log.all.first?.width == 40)
        #expect(view.indicator.calls.isEmpty)
    }

    @Test("A class on another global actor adopts ImageTarget the same way")
    func otherGlobalActor() async throws {
        let f = GatedFixture()
        let url = URL(string: "gated://render/a")!
        f.serve(url, width: 12)
        let log = CompletionLog()
        let placeholderShownAtOnce = await Self.render(url, context: f.context, log: log)
        #expect(placeholderShownAtOnce)
        try #require(await eventually { log.count == 1 })
        try #require(await eventually { await Self.renderedWidths() == [1, 12] })
    }

    @RenderActor private static var surface = RenderSurface()

    @RenderActor private static func render(_ url: URL, context: ImageContext, log: CompletionLog) -> Bool {
        surface.setImage(with: url, placeholder: placeholderImage, context: context, completed: log.handler)
        return surface.widths == [1]
    }

    @RenderActor private static func renderedWidths() -> [Int] { surface.widths }
}
