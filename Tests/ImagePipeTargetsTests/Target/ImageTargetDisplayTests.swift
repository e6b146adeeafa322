import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import ImagePipeTargets
@testable import PipelineCore

/// Binds from a UI-like actor to a `Sendable` target, and says what was shown when `setImage` returned.
actor Binder {
    func bind(_ url: URL?, to target: RecordingTarget, placeholder: Image?, context: ImageContext) -> [Int] {
        target.setImage(with: url, placeholder: placeholder, context: context)
        return target.widths()
    }
}

@Suite("What targets show")
struct ImageTargetDisplayTests {
    @Test("Called from an actor, a Sendable target shows the placeholder before setImage returns")
    func placeholderAtOnceFromActor() async throws {
        let f = GatedFixture()
        let url = URL(string: "gated://display/actor")!
        f.serve(url, width: 8)
        let target = RecordingTarget()
        #expect(await Binder().bind(url, to: target, placeholder: placeholderImage, context: f.context) == [1])
        try #require(await eventually { target.widths() == [1, 8] })
    }

    @Test("A nil URL that supersedes a running load stops the indicator the load started")
    func nilURLStopsIndicator() async throws {
        let f = GatedFixture()
        let url = URL(string: "gated://display/slow")!
        f.serve(url, width: 10, gate: Gate())
        let indicator = RecordingIndicator()
        let target = RecordingTarget(indicator: indicator)
        let log = CompletionLog()
        target.setImage(with: url, context: f.context, completed: log.handler)
        target.setImage(with: nil, placeholder: placeholderImage, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        #expect(log.all.map(\.error) == [.cancelled, .invalidURL("")])
        try #require(await eventually { indicator.calls.last == "stop" }, "the reused cell must not keep spinning: \(indicator.calls)")
        #expect(indicator.calls.filter { $0 == "start" }.count == 1)
    }

    @Test("The display hook gets the whole result: image, bytes, cache type and URL; a placeholder has no bytes")
    func fullResultInDisplay() async throws {
        let f = ManagerFixture(delay: .milliseconds(5))
        let url = URL(string: "test://display/full.timg")!
        let data = f.serve(url.absoluteString, width: 16, height: 8)
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: url, placeholder: placeholderImage, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        try #require(await eventually { target.shown.count == 2 })
        let placeholder = try #require(target.shown.first?.result)
        #expect(placeholder.image?.pixelSize.width == 1)
        #expect(placeholder.data == nil)
        #expect(placeholder.cacheType == .none)
        let loaded = try #require(target.shown.last?.result)
        #expect(loaded.image?.pixelSize == ImageSize(width: 16, height: 8))
        #expect(loaded.data == data)
        #expect(loaded.cacheType == .none)
        #expect(loaded.url == url)

        // From memory the second time: the hook says so.
        target.setImage(with: url, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        try #require(await eventually { target.shown.last?.result?.cacheType == .memory })
        #expect(target.shown.last?.result?.url == url)
    }

    @Test("The fade preset lasts 0.5 s by default, names its style, and shows a loaded image through the full hook")
    func fadePreset() async throws {
        let fade: ImagePresetTransition = .fade
        #expect(fade.style == .fade)
        #expect(fade.duration == 0.5)
        #expect(ImagePresetTransition.fade(duration: 0.2).duration == 0.2)

        final class FadingTarget: ImageTarget, Sendable {
            let inner = RecordingTarget()
            func display(_ image: Image?, in slot: ImageSlot) { inner.display(image, in: slot) }
            func display(_ result: ImageResult, in slot: ImageSlot) { inner.display(result, in: slot) }
            var imageTransition: (any ImageTransition)? { ImagePresetTransition.fade }
        }
        let f = ManagerFixture(delay: .milliseconds(5))
        let url = URL(string: "test://display/fade.timg")!
        f.serve(url.absoluteString, width: 6, height: 6)
        let target = FadingTarget()
        let log = CompletionLog()
        target.setImage(with: url, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        try #require(await eventually { target.inner.widths() == [0, 6] })
        #expect(target.inner.shown.last?.result?.url == url)
    }

    @Test("previousCachedImage shows the image cached for the URL as the placeholder while refreshCached revalidates")
    func previousCachedImage() async throws {
        let f = MemoryBackedFixture()
        defer { f.remove() }
        let url = URL(string: "gated://display/previous")!
        f.serve(url, width: 50, gate: Gate())
        try f.remember(url, width: 40)
        let with = RecordingTarget(), without = RecordingTarget()
        with.setImage(with: url, placeholder: placeholderImage, options: [.refreshCached, .previousCachedImage], context: f.context)
        without.setImage(with: url, placeholder: placeholderImage, options: [.refreshCached], context: f.context)
        try #require(await eventually { with.widths().first != nil && without.widths().first != nil })
        #expect(with.widths().first == 40)
        #expect(without.widths().first == 1)

        // A transformed request shows the cached original while its own image is made.
        let other = URL(string: "gated://display/original")!
        f.serve(other, width: 50, gate: Gate())
        try f.remember(other, width: 44)
        let resized = RecordingTarget()
        let context = f.context.with(.imageTransformer, ResizingTransformer(size: ImageSize(width: 5, height: 5)))
        resized.setImage(with: other, placeholder: placeholderImage, options: [.previousCachedImage, .fromLoaderOnly], context: context)
        try #require(await eventually { resized.widths().first != nil })
        #expect(resized.widths().first == 44)
    }
}

@Suite("Transitions for disk hits")
struct ImageTargetDiskTransitionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let options: ImageOptions
        let transitions: Bool
        var testDescription: String { "\(options.names) transitions: \(transitions)" }
    }

    @Test(
        "A disk hit transitions unless it was read synchronously (queryMemoryDataSync, queryDiskDataSync), or the transition is forced",
        arguments: [
            Case(options: [], transitions: true), Case(options: .queryDiskDataSync, transitions: false),
            Case(options: .queryMemoryDataSync, transitions: false), Case(options: [.queryDiskDataSync, .forceTransition], transitions: true),
        ])
    func diskHitTransition(_ test: Case) async throws {
        let (options, transitions) = (test.options, test.transitions)
        let f = ManagerFixture(delay: .zero)
        let url = URL(string: "test://display/disk.timg")!
        f.cache.putOnDisk(TestCoder.sample(width: 5, height: 5), key: url.absoluteString)
        let transition = RecordingTransition()
        let target = RecordingTarget(transition: transition)
        let log = CompletionLog()
        target.setImage(with: url, options: options, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect((try? log.all.first?.get())?.cacheType == .disk)
        #expect(target.widths().last == 5)
        #expect(transition.calls.contains("apply") == transitions)
    }
}
