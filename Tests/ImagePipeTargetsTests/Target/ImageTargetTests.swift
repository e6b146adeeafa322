import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import ImagePipeTargets
@testable import PipelineCore

@Suite("Image targets")
struct ImageTargetTests {
    let first = URL(string: "test://target/first.timg")!
    let second = URL(string: "test://target/second.timg")!

    @Test("A second setImage cancels the first: the first completes cancelled and only the second's image lands")
    func secondCancelsFirst() async throws {
        let f = GatedFixture()
        let (first, second) = (URL(string: "gated://first")!, URL(string: "gated://second")!)
        f.serve(first, width: 10, gate: Gate())
        f.serve(second, width: 20)
        let target = RecordingTarget()
        let firstLog = CompletionLog(), secondLog = CompletionLog()
        let firstTask = target.setImage(with: first, placeholder: placeholderImage, context: f.context, completed: firstLog.handler)
        target.setImage(with: second, placeholder: placeholderImage, context: f.context, completed: secondLog.handler)
        try #require(await eventually { firstLog.count == 1 && secondLog.count == 1 })
        #expect(firstLog.all.first?.error == .cancelled)
        #expect(firstTask?.isFinished == true)
        #expect(secondLog.all.first?.width == 20)
        try #require(await eventually { target.widths().last == 20 })
        #expect(!target.widths().contains(10), "the cancelled load never shows")
        #expect(target.imageURL == second)
        #expect(target.latestOperationKey == "RecordingTarget")
        #expect(firstLog.count == 1 && secondLog.count == 1, "each call completes once")
    }

    @Test("With avoidAutoCancelImage the earlier load is not cancelled and both complete")
    func avoidAutoCancel() async throws {
        let f = ManagerFixture(delay: .milliseconds(50))
        f.serve(first.absoluteString, width: 10, height: 10)
        f.serve(second.absoluteString, width: 20, height: 20)
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: first, options: [.avoidAutoCancelImage], context: f.context, completed: log.handler)
        target.setImage(with: second, options: [.avoidAutoCancelImage], context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        #expect(Set(log.all.compactMap(\.width)) == [10, 20])
    }

    @Test(
        "Loads for different slots never cancel each other",
        arguments: [
            [ImageSlot.image, .highlightedImage],
            [ImageSlot.image(for: .normal), .image(for: .selected), .backgroundImage(for: .normal), .backgroundImage(for: .disabled)],
        ])
    func slotsAreIndependent(slots: [ImageSlot]) async throws {
        let f = ManagerFixture(delay: .milliseconds(100))
        let target = RecordingTarget()
        let log = CompletionLog()
        for (offset, slot) in slots.enumerated() {
            let url = URL(string: "test://target/slot\(offset).timg")!
            f.serve(url.absoluteString, width: 10 + offset, height: 10)
            target.setImage(with: url, slot: slot, context: f.context, completed: log.handler)
        }
        #expect(Set(slots.map { $0.defaultOperationKey(for: RecordingTarget.self) }).count == slots.count)
        try #require(await eventually { log.count == slots.count })
        #expect(log.all.allSatisfy { $0.error == nil })
        for (offset, slot) in slots.enumerated() {
            try #require(await eventually { target.widths(in: slot) == [0, 10 + offset] }, "cleared by the nil placeholder, then its own image")
        }
    }

    @Test("A custom operation key from the context is used, and loads under it cancel each other across slots")
    func customOperationKey() async throws {
        let f = GatedFixture()
        let (first, second) = (URL(string: "gated://first")!, URL(string: "gated://second")!)
        f.serve(first, width: 10, gate: Gate())
        f.serve(second, width: 20)
        let target = RecordingTarget()
        let log = CompletionLog()
        let context = f.context.with(.operationKey, "shared")
        target.setImage(with: first, slot: .image, context: context, completed: log.handler)
        #expect(target.imageLoadOperation(forKey: "shared") != nil)
        target.setImage(with: second, slot: .highlightedImage, context: context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        #expect(log.all.first?.error == .cancelled)
        #expect(target.latestOperationKey == "shared")
        #expect(target.imageURL(forKey: "shared") == second)
        try #require(await eventually { target.imageLoadOperation(forKey: "shared") == nil }, "finished operations are not kept")
    }

    @Test("The request carries the operation key but not the custom manager")
    func contextPassedOn() async throws {
        let coders = ImageCodersManager(coders: [TestCoder()])
        let loader = TestLoader(scheme: "ctx", missing: .data(TestCoder.sample(width: 7, height: 7)))
        let manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders)
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: URL(string: "ctx://one")!, slot: .highlightedImage, context: ImageContext().with(.imageManager, manager), completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.width == 7)
        let seen = try #require(loader.contexts.first)
        #expect(seen[.operationKey] == "RecordingTarget.highlightedImage")
        #expect(seen[.imageManager] == nil)
    }

    @Test("The placeholder shows at once; a failure without delayPlaceholder leaves it (case 1b)")
    func placeholderThenFailure() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: first, placeholder: placeholderImage, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.error == .stubBadStatus(404))
        #expect(target.widths() == [1])
    }

    @Test("delayPlaceholder shows the placeholder only once the load has failed (case 2a)")
    func delayedPlaceholderOnFailure() async throws {
        let f = ManagerFixture(delay: .milliseconds(100))
        f.loader.answer(first.absoluteString, with: .error(.stubBadStatus(500)))
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: first, placeholder: placeholderImage, options: [.delayPlaceholder], context: f.context, completed: log.handler)
        #expect(target.shown.isEmpty)
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.error == .stubBadStatus(500))
        #expect(target.widths() == [1], "the placeholder appears after the failure, and only then")
    }

    @Test("delayPlaceholder with a success shows only the image")
    func delayedPlaceholderOnSuccess() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        f.serve(first.absoluteString, width: 10, height: 10)
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: first, placeholder: placeholderImage, options: [.delayPlaceholder], context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect(target.widths() == [10])
    }

    @Test("avoidAutoSetImage hands the image to the completion only (case 1a)")
    func avoidAutoSet() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        f.serve(first.absoluteString, width: 10, height: 10)
        let target = RecordingTarget()
        let log = CompletionLog()
        target.setImage(with: first, placeholder: placeholderImage, options: [.avoidAutoSetImage], context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.width == 10)
        #expect(target.widths() == [1], "only the placeholder was set by the target binding")
    }

    @Test("A nil URL shows the placeholder and completes with invalidURL")
    func nilURL() async throws {
        let f = ManagerFixture()
        for options in [ImageOptions(), .delayPlaceholder] {
            let target = RecordingTarget()
            let log = CompletionLog()
            let task = target.setImage(with: nil, placeholder: placeholderImage, options: options, context: f.context, completed: log.handler)
            #expect(task == nil)
            try #require(await eventually { log.count == 1 })
            #expect(log.all.first?.error == .invalidURL(""))
            #expect(target.widths() == [1])
        }
        #expect(f.loader.totalRequests == 0)
    }

    @Test("Progress is reset per load, follows the bytes and reaches the total; the indicator starts, moves and stops")
    func progressReachesTotal() async throws {
        let f = ManagerFixture(delay: .milliseconds(40))
        let data = f.serve(first.absoluteString, width: 10, height: 10)
        let indicator = RecordingIndicator()
        let target = RecordingTarget(indicator: indicator)
        let log = CompletionLog()
        let reported = Mutex<[Int64]>([])
        target.setImage(with: first, context: f.context, completed: log.handler, progress: { value in reported.withLock { $0.append(value.receivedBytes) } })
        try #require(await eventually { log.count == 1 })
        let progress = target.imageProgress
        #expect(progress.totalUnitCount == Int64(data.count))
        #expect(progress.completedUnitCount == Int64(data.count))
        #expect(progress.fractionCompleted == 1 && progress.isFinished)
        let values = reported.withLock { $0 }
        #expect(values == values.sorted() && values.last == Int64(data.count))
        try #require(await eventually { indicator.calls.last == "stop" })
        #expect(indicator.calls.first == "start" && indicator.calls.contains("progress"))

        try #require(await eventually { f.cache.memoryKeys.contains(first.absoluteString) })
        // A memory hit reports no bytes: SDWebImage then marks the progress unknown/unknown, i.e. done.
        target.setImage(with: first, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        #expect(target.imageProgress.totalUnitCount == ImageTargetProgress.unknownUnitCount)
        #expect(target.imageProgress.isFinished)
    }

    @Test("The transition runs for network results, not for memory hits unless forced")
    func transitionOnlyForNetwork() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        f.serve(first.absoluteString, width: 10, height: 10)
        let transition = RecordingTransition()
        let target = RecordingTarget(transition: transition)
        let log = CompletionLog()
        target.setImage(with: first, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 1 })
        #expect(try log.all[0].get().cacheType == .none)
        try #require(await eventually { transition.calls == ["prepare", "apply", "completed"] })
        try #require(await eventually { f.cache.memoryKeys.contains(first.absoluteString) })

        target.setImage(with: first, context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 2 })
        #expect(try log.all[1].get().cacheType == .memory)
        #expect(transition.calls.count == 3, "a memory hit shows at once")
        #expect(target.widths() == [0, 10, 0, 10], "a nil placeholder clears the slot, as in SDWebImage")

        target.setImage(with: first, options: [.forceTransition], context: f.context, completed: log.handler)
        try #require(await eventually { log.count == 3 })
        try #require(await eventually { transition.calls.count == 6 })
    }

    @Test("waitTransition holds the completion until the transition has finished")
    func waitTransition() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        f.serve(first.absoluteString, width: 10, height: 10)
        let transition = RecordingTransition(holdsUntilReleased: true)
        let target = RecordingTarget(transition: transition)
        let log = CompletionLog()
        target.setImage(with: first, options: [.waitTransition], context: f.context, completed: log.handler)
        try #require(await eventually { transition.calls == ["prepare", "apply"] })
        // Apply and the completion would run in one job on the target's serial executor; a job
        // queued after apply has run therefore runs after any completion that was not held.
        await drain(target)
        #expect(log.count == 0)
        transition.release()
        try #require(await eventually { log.count == 1 })
        #expect(transition.calls == ["prepare", "apply", "completed"])
    }

    @Test("Operations are held weakly and cancelled by key")
    func operationTable() async throws {
        let f = ManagerFixture(delay: .seconds(30))
        f.serve(first.absoluteString)
        let target = RecordingTarget()
        let log = CompletionLog()
        let task = try #require(target.setImage(with: first, context: f.context, completed: log.handler))
        #expect(target.imageLoadOperation(forKey: "RecordingTarget") === task)
        target.cancelCurrentImageLoad()
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.error == .cancelled)
        #expect(target.imageLoadOperation(forKey: "RecordingTarget") == nil)

        let weakTask = WeakReference<ImageTask>()
        do {
            let detached = f.manager.imageTask(with: nil)
            weakTask.set(detached)
            target.setImageLoadOperation(detached, forKey: "manual")
        }
        try #require(await eventually { weakTask.object == nil }, "the manager lets go of a finished task, and so does the table")
        #expect(target.imageLoadOperation(forKey: "manual") == nil)
    }

    @Test("A load does not keep its target alive, and still completes when the target is gone")
    func targetGoneDuringLoad() async throws {
        let f = GatedFixture()
        let gate = Gate()
        let url = URL(string: "gated://late")!
        f.serve(url, width: 10, gate: gate)
        let log = CompletionLog()
        let weakTarget = WeakReference<RecordingTarget>()
        do {
            let target = RecordingTarget()
            weakTarget.set(target)
            target.setImage(with: url, context: f.context, completed: log.handler)
        }
        try #require(await eventually { weakTarget.object == nil })
        gate.open()
        try #require(await eventually { log.count == 1 })
        #expect(log.all.first?.width == 10)
    }

    @Test("Targets that are gone leave the registry")
    func registryCleanup() async throws {
        let registry = ImageTargetRegistry()
        for _ in 0..<500 {
            let target = RecordingTarget()
            _ = registry.state(for: target)
        }
        #expect(registry.count < 200)
        let kept = RecordingTarget()
        let state = registry.state(for: kept)
        #expect(registry.state(for: kept) === state)
    }

    /// Waits until the target's own serial executor has run everything queued so far.
    private func drain(_ target: RecordingTarget) async {
        let done = Gate()
        ImageTargetRegistry.shared.state(for: target).executor.execute { done.open() }
        try? await done.wait()
    }
}
