import Foundation
import PipelineCore
import Synchronization

/// Runs synchronous plugin code on its own thread and gives up waiting after `limit`, so a plugin
/// that hangs on hostile input fails its contract instead of hanging the test run. (The thread of
/// a plugin that never returns is leaked; the run goes on.)
enum TimeBound {
    enum Outcome<T: Sendable>: Sendable, CustomStringConvertible {
        case returned(T)
        case threw(any Error)
        case timedOut

        /// For failure messages: what happened instead of what the contract wanted.
        var description: String {
            switch self {
            case .returned: "it returned normally"
            case .threw(let error as ImagePipeError): "it threw \(error)"
            case .threw(let error): "it threw \(type(of: error)) (not an ImagePipeError): \(error)"
            case .timedOut: "it did not return within the time limit (a hang)"
            }
        }
    }

    static func run<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () throws -> T) async -> Outcome<T> {
        let box = Mutex<Outcome<T>?>(nil)
        let thread = Thread {
            let outcome: Outcome<T>
            do { outcome = .returned(try work()) } catch { outcome = .threw(error) }
            box.withLock { $0 = outcome }
        }
        thread.stackSize = 8 << 20
        thread.start()
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let outcome = box.withLock({ $0 }) { return outcome }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return box.withLock { $0 } ?? .timedOut
    }
}

/// `TimeBound` for async plugin code (loaders, caches): runs `work` in a task of its own and stops
/// waiting after `limit`. A task that never ends is left behind, suspended, so a hung loader fails
/// its contract instead of hanging the run.
enum AsyncTimeBound {
    static func run<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async -> TimeBound.Outcome<T> {
        let box = Mutex<TimeBound.Outcome<T>?>(nil)
        Task {
            let outcome: TimeBound.Outcome<T>
            do { outcome = .returned(try await work()) } catch { outcome = .threw(error) }
            box.withLock { $0 = outcome }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let outcome = box.withLock({ $0 }) { return outcome }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return box.withLock { $0 } ?? .timedOut
    }
}
