import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Progressive loads")
struct ProgressiveLoadTests {
    @Test("Partial images arrive before the final image, grow, never exceed it, and are not cached")
    func partials() async throws {
        let coders = ImageCodersManager(coders: [ProgressiveTestCoder()])
        let cache = InMemoryImageCache(coders: coders)
        let loader = TestLoader.scripted(delay: .milliseconds(200))
        let manager = ImageManager(cache: cache, loader: loader, coders: coders)
        let url = URL(string: "test://prog/a.timg")!
        loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 10, height: 40)))
        var partialHeights: [Int] = []
        var final: ImageResult?
        for await event in manager.imageTask(with: url, options: [.progressiveLoad, .waitStoreCache]).events {
            switch event {
            case .partialImage(let image):
                #expect(image.metadata.isIncremental)
                partialHeights.append(image.pixelSize.height)
            case .completed(let result): final = result
            default: break
            }
        }
        #expect(!partialHeights.isEmpty)
        #expect(partialHeights == partialHeights.sorted())
        #expect(partialHeights.allSatisfy { $0 <= 40 })
        #expect(final?.image?.pixelSize == ImageSize(width: 10, height: 40))
        #expect(final?.image?.metadata.isIncremental == false)
        #expect(cache.stores.count == 1)
    }

    @Test("A progressive and a plain load of one URL at once make one download and one decode; only the progressive one gets partial images")
    func progressiveAndPlainShareDownload() async throws {
        let coders = ImageCodersManager(coders: [ProgressiveTestCoder()])
        let loader = TestLoader.scripted(delay: .milliseconds(400))
        let manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders)
        let url = URL(string: "test://prog/shared.timg")!
        loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 10, height: 40)))
        let partials = Counter()
        let progressive = manager.imageTask(with: url, options: .progressiveLoad) { event in
            if case .partialImage = event { partials.increment() }
        }
        // The progressive load starts the download (the loader is called with its options), the plain one joins.
        try #require(await eventually { loader.totalRequests == 1 })
        let plain = manager.imageTask(with: url) { event in
            if case .partialImage = event { Issue.record("a plain load got a partial image") }
        }
        #expect(await eventually { manager.decodes.joinerCount == 2 })
        let results = try await [progressive.result(), plain.result()]
        #expect(results.allSatisfy { $0.image?.pixelSize == ImageSize(width: 10, height: 40) })
        #expect(loader.requests(url.absoluteString) == 1)
        #expect(manager.decodes.startedCount == 1)
        #expect(partials.count > 0)
    }

    @Test("Without progressiveLoad no partial image is delivered")
    func noPartials() async throws {
        let f = ManagerFixture()
        let url = URL(string: "test://prog/b.timg")!
        f.serve(url.absoluteString)
        var partials = 0
        for await event in f.manager.imageTask(with: url).events {
            if case .partialImage = event { partials += 1 }
        }
        #expect(partials == 0)
    }
}
