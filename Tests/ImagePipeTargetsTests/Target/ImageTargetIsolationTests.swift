import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// An actor executor on a dispatch queue the test can recognise.
final class MarkedQueueExecutor: SerialExecutor {
    static let key = DispatchSpecificKey<String>()
    let queue: DispatchQueue

    init(mark: String) {
        queue = DispatchQueue(label: "test.actor.\(mark)")
        queue.setSpecific(key: Self.key, value: mark)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// Which executor marks completions ran under.
final class MarkLog: Sendable {
    private let marks = Mutex<[String?]>([])
    func recordCurrent() { marks.withLock { $0.append(DispatchQueue.getSpecific(key: MarkedQueueExecutor.key)) } }
    var all: [String?] { marks.withLock { $0 } }
}

/// Stands for code on a UI or render actor that binds images to targets.
actor Screen {
    let executor = MarkedQueueExecutor(mark: "screen")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func show(_ url: URL, in target: RecordingTarget, context: ImageContext, seen: MarkLog) -> ImageTask? {
        target.setImage(with: url, context: context) { _ in seen.recordCurrent() }
    }
}

@Suite("Target completions run on the caller's actor")
struct ImageTargetIsolationTests {
    @Test("Called from an actor, the completion runs on that actor; called from no actor, on the target's own queue")
    func callerActor() async throws {
        let fixture = ManagerFixture(delay: .milliseconds(5))
        let url = URL(string: "test://iso/a.timg")!
        fixture.serve(url.absoluteString)
        let target = RecordingTarget()
        let seen = MarkLog()
        let context = ImageContext().with(.imageManager, fixture.manager)
        let screen = Screen()
        let task = await screen.show(url, in: target, context: context, seen: seen)
        _ = try await task?.result()
        try #require(await eventually { seen.all.count == 1 })
        #expect(seen.all == ["screen"])
        #expect(target.widths().last == 40)
        _ = screen

        // Outside any actor: the target's own serial queue, not the actor.
        let outside = MarkLog()
        let plain = RecordingTarget()
        let done = Task.detached {
            plain.setImage(with: url, context: context) { _ in outside.recordCurrent() }
        }
        _ = try await done.value?.result()
        try #require(await eventually { outside.all.count == 1 })
        #expect(outside.all == [nil])
    }
}
