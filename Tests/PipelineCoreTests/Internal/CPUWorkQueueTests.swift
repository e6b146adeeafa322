import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PipelineCore

@Suite("CPU work queue")
struct CPUWorkQueueTests {
    /// A decode that polls its checkpoint every millisecond, as coders do between rows: it counts
    /// its polls and returns how it ended. It gives up by itself after a minute, so a regression
    /// fails the test instead of hanging it.
    static func pollingDecode(polls: Counter) throws -> String {
        let checkpoint = DecodeCheckpoint(options: ImageDecodeOptions(maxDecodeTime: nil))
        for _ in 0..<60_000 {
            try checkpoint.check()
            polls.increment()
            usleep(1000)
        }
        return "ran to the end"
    }

    @Test("Cancelling the task that awaits a job stops the decode running on its thread")
    func cancellationReachesTheJob() async throws {
        let queue = CPUWorkQueue(limit: 1)
        let polls = Counter()
        let job = Task { try await queue.run { try Self.pollingDecode(polls: polls) } }
        try #require(await eventually { polls.count > 0 })
        job.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await job.value }
    }

    @Test("A decode shared by two requests goes on when one cancels and stops when both have")
    func sharedDecodeStopsWithItsLastSubscriber() async throws {
        let queue = CPUWorkQueue(limit: 1)
        let stage = Coalescer<String, String, Int>()
        let polls = Counter()
        let ended = Mutex<String?>(nil)
        let work: Coalescer<String, String, Int>.Work = { _ in
            do {
                return try await queue.run { try Self.pollingDecode(polls: polls) }
            } catch {
                ended.withLock { $0 = "\(error)" }
                throw error
            }
        }
        let first = Task { try await stage.value(for: "k", work: work) }
        try #require(await eventually { polls.count > 0 })
        let second = Task { try await stage.value(for: "k", work: work) }
        try #require(await eventually { stage.joinerCount(for: "k") == 2 })

        first.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await first.value }
        let before = polls.count
        try #require(await eventually { polls.count > before + 20 })
        #expect(ended.withLock { $0 } == nil)

        second.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await second.value }
        try #require(await eventually { ended.withLock { $0 } != nil })
        #expect(ended.withLock { $0 } == "\(ImagePipeError.cancelled)")
        #expect(stage.startedCount == 1)
    }
}
