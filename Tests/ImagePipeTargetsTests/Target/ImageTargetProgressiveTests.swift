import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Image targets with progressive loads")
struct ImageTargetProgressiveTests {
    let url = URL(string: "test://target/progressive.timg")!

    private func manager() -> (ImageManager, TestLoader) {
        let coders = ImageCodersManager(coders: [ProgressiveTestCoder()])
        let loader = TestLoader.scripted(delay: .milliseconds(80))
        return (ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders), loader)
    }

    @Test("Partial images are shown as they grow, then the final one; the completion runs once, at the end")
    func partialsShown() async throws {
        let (manager, loader) = manager()
        loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 10, height: 40)))
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: url, placeholder: placeholderImage, options: [.progressiveLoad], context: ImageContext().with(.imageManager, manager), completed: log.handler)
        try #require(await eventually { log.count == 1 })
        try #require(await eventually { target.shown.last?.image?.pixelSize.height == 40 })
        let heights = target.shown.map { $0.image?.pixelSize.height ?? 0 }
        #expect(heights.first == 1, "the placeholder first")
        #expect(heights.count > 2, "partial images in between: \(heights)")
        #expect(heights == heights.sorted())
        #expect(log.count == 1 && log.all[0].width == 10)
    }

    @Test("With avoidAutoSetImage, partial images go to the completion (not finished), then the final one")
    func partialsToCompletion() async throws {
        let (manager, loader) = manager()
        loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 10, height: 40)))
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(
            with: url, placeholder: placeholderImage, options: [.progressiveLoad, .avoidAutoSetImage],
            context: ImageContext().with(.imageManager, manager), completed: log.handler)
        try #require(await eventually { log.all.contains { (try? $0.get().isFinished) == true } })
        let results = log.all.compactMap { try? $0.get() }
        #expect(results.count > 1)
        #expect(results.dropLast().allSatisfy { !$0.isFinished })
        #expect(results.last?.isFinished == true && results.last?.image?.pixelSize.height == 40)
        #expect(target.widths() == [1], "the target only ever showed the placeholder")
    }
}
