import Dispatch
import Foundation
import ImagePipe
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import ImagePipeTargets

@Suite("Target callback executor")
struct ImageTargetCallbackExecutorTests {
    @Test("A Sendable target's completion runs on the context's callbackExecutor")
    func targetCallbackExecutor() async throws {
        let f = GatedFixture()
        let url = URL(string: "gated://executor/a")!
        f.serve(url, width: 8)
        let queue = DispatchQueue(label: "test.target-callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 9)
        let seen = Mutex<[Int?]>([])
        let target = RecordingTarget()
        target.setImage(with: url, context: f.context.with(.callbackExecutor, DispatchQueueCallbackExecutor(queue))) { _ in
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        try #require(await eventually { !seen.withLock { $0 }.isEmpty })
        #expect(seen.withLock { $0 } == [9])
    }
}
