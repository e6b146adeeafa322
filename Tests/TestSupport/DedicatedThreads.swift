import Foundation
import Synchronization
import Testing

/// `@Suite("…", .dedicatedThreads)`: the suite's tests run on threads of their own instead of Swift's
/// cooperative pool. A plain `swift test` runs every suite at once in one process, and the pool has
/// one thread per core: hundreds of decoding test cases queued on it would make a loader test wait
/// a minute for its continuation to run, so its timeouts and servers would fire first. On their
/// own threads the decodes share the cores through the kernel's scheduler, and the pool stays free.
public struct DedicatedThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Each test case gets the scope (a suite alone has no body to move).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(DedicatedThreadsExecutor.shared) { try await function() }
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// Runs the tests on the dedicated executor's threads, off the cooperative pool.
    public static var dedicatedThreads: Self { Self() }
}

/// A task executor with one thread per core, for test work that computes or blocks.
/// Jobs run in the order they arrive.
final class DedicatedThreadsExecutor: TaskExecutor {
    static let shared = DedicatedThreadsExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for _ in 0..<max(threads, 1) {
            let thread = Thread { [self] in runJobs() }
            // Decoders in a debug build recurse deeper than a secondary thread's default stack.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    private func runJobs() {
        while true {
            available.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
