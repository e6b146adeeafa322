import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Prefetcher")
struct ImagePrefetcherTests {
    @Test("Three URLs: progress counts 1…3 of 3, then one completion (3, 0), and the images are cached")
    func threeURLs() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        let urls = (0..<3).map { URL(string: "test://p/\($0).timg")! }
        for url in urls { f.serve(url.absoluteString) }
        let prefetcher = ImagePrefetcher(manager: f.manager)
        let progress = Mutex<[Int]>([])
        let result = await withCheckedContinuation { continuation in
            prefetcher.prefetch(
                urls,
                progress: { finished, total in
                    #expect(total == 3)
                    progress.withLock { $0.append(finished) }
                },
                completed: { finished, skipped in
                    continuation.resume(returning: (finished, skipped))
                })
        }
        #expect(result == (3, 0))
        #expect(progress.withLock { $0 } == [1, 2, 3])
        try #require(await eventually { (try? await f.manager.loadImage(with: urls[0], options: [.fromCacheOnly]))?.image != nil })
    }

    @Test("An empty list completes at once with (0, 0) and no token")
    func empty() {
        let called = Mutex(false)
        let token = ImagePrefetcher(manager: ManagerFixture().manager).prefetch(
            [],
            completed: { finished, skipped in
                #expect(finished == 0 && skipped == 0)
                called.withLock { $0 = true }
            })
        #expect(token == nil)
        #expect(called.withLock { $0 })
    }

    @Test("Failures count as skipped, and at most maxConcurrentPrefetchCount load at once")
    func skippedAndConcurrency() async throws {
        let f = ManagerFixture(delay: .milliseconds(30))
        let good = (0..<6).map { URL(string: "test://p/good\($0).timg")! }
        for url in good { f.serve(url.absoluteString) }
        let bad = (0..<2).map { URL(string: "test://p/bad\($0).timg")! }
        let prefetcher = ImagePrefetcher(manager: f.manager, maxConcurrentPrefetchCount: 2)
        let peak = Mutex((now: 0, max: 0))
        let monitor = Task {
            while !Task.isCancelled {
                let running = f.manager.runningCount
                peak.withLock { $0.max = max($0.max, running) }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        let counts = await prefetcher.prefetch(good + bad)
        monitor.cancel()
        #expect(counts.finished == 8 && counts.skipped == 2)
        #expect(peak.withLock { $0.max } <= 2)
    }

    @Test("Two batches at once both complete with their own counts")
    func twoBatches() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        let a = (0..<4).map { URL(string: "test://a/\($0).timg")! }
        let b = (0..<3).map { URL(string: "test://b/\($0).timg")! }
        for url in a + b { f.serve(url.absoluteString) }
        let prefetcher = ImagePrefetcher(manager: f.manager)
        async let first = prefetcher.prefetch(a)
        async let second = prefetcher.prefetch(b)
        let (ra, rb) = await (first, second)
        #expect(ra == (4, 0) && rb == (3, 0))
    }

    @Test("Cancelling a batch stops its loads, drops its handlers, and never hangs")
    func cancel() async throws {
        let f = ManagerFixture(delay: .seconds(30))
        let urls = (0..<5).map { URL(string: "test://c/\($0).timg")! }
        for url in urls { f.serve(url.absoluteString) }
        let prefetcher = ImagePrefetcher(manager: f.manager)
        let completed = Mutex(false)
        let token = prefetcher.prefetch(urls, completed: { _, _ in completed.withLock { $0 = true } })
        try #require(await eventually { f.manager.runningCount == 3 })
        #expect(prefetcher.runningBatchCount == 1)
        prefetcher.cancelPrefetching()
        // Well before the 30 s loads could finish on their own.
        try #require(await eventually { prefetcher.runningBatchCount == 0 && !f.manager.isRunning })
        #expect(!completed.withLock { $0 })
        #expect(token?.skippedCount ?? 0 <= 5)
    }
}
