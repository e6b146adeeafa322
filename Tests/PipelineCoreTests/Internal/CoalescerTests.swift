import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PipelineCore

@Suite("Coalescer")
struct CoalescerTests {
    typealias Stage = Coalescer<String, Int, Int>

    @Test("Callers of one key share one run of the work and all get its value and its events")
    func shares() async throws {
        let stage = Stage()
        let events = Counter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await stage.value(for: "k", onProgress: { _ in events.increment() }) { emit in
                        try await Task.sleep(for: .milliseconds(100))
                        emit(1)
                        return 42
                    }
                }
            }
            var all: [Int] = []
            for try await value in group { all.append(value) }
            return all
        }
        #expect(values == Array(repeating: 42, count: 20))
        #expect(stage.startedCount == 1)
        #expect(events.count == 20)
        #expect(stage.inFlightCount == 0)
    }

    @Test("A cancelled caller leaves at once with cancelled; the others still get the value")
    func cancelOne() async throws {
        let stage = Stage()
        // The work cannot finish before the test opens the gate, which it does only after the
        // cancelled caller has returned: so that caller provably did not wait for the work.
        let gate = Gate()
        let work: Stage.Work = { _ in
            try await gate.wait()
            return 7
        }
        let leaving = Task { try await stage.value(for: "k", work: work) }
        let staying = Task { try await stage.value(for: "k", work: work) }
        try #require(await eventually { stage.inFlightCount == 1 })
        leaving.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await leaving.value }
        gate.open()
        #expect(try await staying.value == 7)
        #expect(stage.startedCount == 1)
    }

    @Test("Progress reaches each caller while it is joined: one that left hears nothing more, the one that stays hears it all")
    func progressStopsForALeaver() async throws {
        let stage = Stage()
        let step = Gate()
        let heard = ProgressLog()
        let work: Stage.Work = { report in
            report(1)
            try await step.wait()
            report(2)
            return 9
        }
        func caller(_ name: String) -> Task<Int, any Error> {
            Task { try await stage.value(for: "k", onProgress: { value in heard.record(value, for: name) }, work: work) }
        }
        let leaving = caller("leaving")
        try #require(await eventually { stage.inFlightCount == 1 })
        let staying = caller("staying")
        try #require(await eventually { stage.joinerCount == 2 })
        leaving.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await leaving.value }
        #expect(stage.joinerCount == 1)
        step.open()
        #expect(try await staying.value == 9)
        #expect(heard.values(for: "leaving").allSatisfy { $0 == 1 })
        #expect(heard.values(for: "staying").last == 2)
        #expect(stage.joinerCount == 0)
    }

    @Test("Callers of different keys run their own work; joiners are counted per key and in all")
    func keysAreIndependent() async throws {
        let stage = Stage()
        let gate = Gate()
        let work: Stage.Work = { _ in
            try await gate.wait()
            return 5
        }
        let a1 = Task { try await stage.value(for: "a", work: work) }
        let a2 = Task { try await stage.value(for: "a", work: work) }
        let b = Task { try await stage.value(for: "b", work: work) }
        try #require(await eventually { stage.joinerCount == 3 })
        #expect(stage.joinerCount(for: "a") == 2)
        #expect(stage.joinerCount(for: "b") == 1)
        #expect(stage.inFlightCount == 2)
        gate.open()
        #expect(try await [a1.value, a2.value, b.value] == [5, 5, 5])
        #expect(stage.startedCount == 2)
    }

    @Test("Shared work runs at the highest priority of its callers: a high-priority caller joining low-priority work raises it")
    func highestPriority() async throws {
        let stage = Stage()
        let joined = Gate()
        let raised = Mutex<Bool?>(nil)
        let work: Stage.Work = { _ in
            try await joined.wait()
            // Escalation is applied when the caller joins; `eventually` only absorbs the instant
            // between the join being recorded and the escalation call that follows it.
            let result = await eventually { Task.currentPriority >= .high }
            raised.withLock { $0 = result }
            return 1
        }
        let low = Task(priority: .low) { try await stage.value(for: "k", work: work) }
        try #require(await eventually { stage.inFlightCount == 1 })
        let high = Task(priority: .high) { try await stage.value(for: "k", work: work) }
        try #require(await eventually { stage.joinerCount(for: "k") == 2 })
        joined.open()
        #expect(try await low.value == 1)
        #expect(try await high.value == 1)
        #expect(raised.withLock { $0 } == true)
        #expect(stage.startedCount == 1)
    }

    @Test("When the last caller leaves, the work is cancelled and the key is free again")
    func lastLeaves() async throws {
        let stage = Stage()
        let workCancelled = Mutex(false)
        let caller = Task {
            try await stage.value(for: "k") { _ in
                do { try await Task.sleep(for: .seconds(30)) } catch {
                    workCancelled.withLock { $0 = true }
                    throw error
                }
                return 1
            }
        }
        try #require(await eventually { stage.inFlightCount == 1 })
        caller.cancel()
        _ = try? await caller.value
        try #require(await eventually { workCancelled.withLock { $0 } })
        #expect(stage.inFlightCount == 0)
        #expect(try await stage.value(for: "k") { _ in 2 } == 2)
        #expect(stage.startedCount == 2)
    }

    @Test("Errors reach every caller; a caller after the work finished starts it again")
    func errorsAndRestart() async throws {
        let stage = Stage()
        await #expect(throws: ImagePipeError.stubBadStatus(500)) {
            try await stage.value(for: "k") { _ in throw ImagePipeError.stubBadStatus(500) }
        }
        #expect(try await stage.value(for: "k") { _ in 3 } == 3)
        #expect(stage.startedCount == 2)
    }

    @Test("Hundreds of callers joining and cancelling at random never lose or double an answer")
    func stress() async throws {
        let stage = Stage()
        let answers = Counter()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<300 {
                group.addTask {
                    let call = Task {
                        try await stage.value(for: "k\(i % 5)") { _ in
                            try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
                            return i
                        }
                    }
                    if i % 3 == 0 { call.cancel() }
                    _ = try? await call.value
                    answers.increment()
                }
            }
        }
        #expect(answers.count == 300)
        #expect(stage.inFlightCount == 0)
    }
}

/// Progress values heard, per caller.
private final class ProgressLog: Sendable {
    private let heard = Mutex<[String: [Int]]>([:])
    func record(_ value: Int, for caller: String) { heard.withLock { $0[caller, default: []].append(value) } }
    func values(for caller: String) -> [Int] { heard.withLock { $0[caller] ?? [] } }
}
