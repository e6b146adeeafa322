import Testing

@testable import ImageServer

@Suite("WorkLimiter: places for fetching, workers for processing")
struct WorkLimiterTests {
    @Test("a request gives its place to the next as it gets a worker, so the next fetches while it processes")
    func placeHandedOnAtProcessing() async throws {
        let limiter = WorkLimiter(workers: 1, queueSize: 0)
        let (started, startedInput) = AsyncStream<Void>.makeStream()
        let (finish, finishInput) = AsyncStream<Void>.makeStream()
        async let first: Void = limiter.run { admission in
            try await admission.process {
                startedInput.yield()
                for await _ in finish { break }
            }
        }
        for await _ in started { break }
        #expect(limiter.processing == 1)
        #expect(limiter.admitted == 0)
        // With no queue, a second request is admitted only if the first gave its place up.
        let second = try await limiter.run { _ in (limiter.admitted, limiter.processing) }
        #expect(second == (1, 1))
        finishInput.yield()
        try await first
        #expect(limiter.admitted == 0 && limiter.processing == 0)
    }

    @Test("past the places and the queue, a request is refused at once")
    func queueFullRefused() async throws {
        let limiter = WorkLimiter(workers: 1, queueSize: 0)
        let (started, startedInput) = AsyncStream<Void>.makeStream()
        let (finish, finishInput) = AsyncStream<Void>.makeStream()
        async let first: Void = limiter.run { _ in
            startedInput.yield()
            for await _ in finish { break }
        }
        for await _ in started { break }
        await #expect(throws: WorkLimiter.Refusal.queueFull) { try await limiter.run { _ in } }
        finishInput.yield()
        try await first
        #expect(limiter.admitted == 0)
    }
}
