import Dispatch
import Foundation
import Synchronization

/// A few connections, each owned by a dedicated thread, so a blocking hiredis call never parks a
/// thread of Swift's cooperative pool. Commands queue (bounded) for the next free connection.
///
/// Faults degrade: a refused connect, a command over the timeout, a closed socket or an error reply
/// answers nil (the caller treats it as a miss or a dropped store), counts as a fault and feeds the
/// circuit breaker; while the breaker is open, commands answer nil without touching the network.
/// The worker threads block SIGPIPE, so a write to a closed socket fails with EPIPE instead of
/// ending the process.
final class RedisCommandPool: Sendable {
    private typealias Job = @Sendable (RedisConnection?) -> Void

    private struct Queue {
        var jobs: [Job] = []
        var closed = false
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    private let configuration: RedisCacheConfiguration
    let breaker: RedisCircuitBreaker
    let counters: RedisCacheCounters
    private let workers: Int

    init(configuration: RedisCacheConfiguration, counters: RedisCacheCounters) {
        self.configuration = configuration
        self.counters = counters
        self.breaker = RedisCircuitBreaker(threshold: configuration.breakerThreshold, cooldown: configuration.breakerCooldown)
        self.workers = max(1, configuration.connections)
        for index in 0..<workers {
            let thread = Thread { [self] in self.work() }
            thread.name = "imagepipe.redis.\(index)"
            thread.start()
        }
    }

    /// Stops the worker threads once the queued commands are done.
    func close() {
        queue.withLock { $0.closed = true }
        for _ in 0..<workers { available.signal() }
    }

    /// Runs `arguments` on a pooled connection; nil on any fault, when skipped, or when the calling
    /// task is cancelled (answered at once; the command may still run).
    func run(_ arguments: [Data]) async -> RedisReply? {
        guard breaker.allows() else {
            counters.record(.skippedBreakerOpen)
            return nil
        }
        let answer = RedisAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(with: continuation)
                let queued = enqueue { [self] connection in
                    answer.finish(self.execute(arguments, on: connection))
                }
                if !queued {
                    counters.record(.skippedQueueFull)
                    answer.finish(nil)
                }
            }
        } onCancel: {
            answer.finish(nil)
        }
    }

    func run(_ arguments: [String]) async -> RedisReply? {
        await run(arguments.map { Data($0.utf8) })
    }

    private func enqueue(_ job: @escaping Job) -> Bool {
        let accepted = queue.withLock { queue in
            guard !queue.closed, queue.jobs.count < max(1, configuration.maxQueuedCommands) else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// The worker thread: owns one connection, (re)made on demand, dropped after a fault.
    private func work() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var connection: RedisConnection?
        while true {
            available.wait()
            let job: Job? = queue.withLock { queue in queue.jobs.isEmpty ? nil : queue.jobs.removeFirst() }
            guard let job else {
                if queue.withLock({ $0.closed }) { return }
                continue
            }
            // A queued command the breaker has since stopped is answered without the network.
            guard !breaker.isCoolingDown else {
                counters.record(.skippedBreakerOpen)
                job(nil)
                continue
            }
            if connection == nil {
                do {
                    connection = try RedisConnection(configuration: configuration)
                } catch {
                    recordFault(error.kind)
                    job(nil)
                    continue
                }
            }
            job(connection)
            if let current = connection, current.isBroken { connection = nil }
        }
    }

    /// Runs one command; a nil connection (connect failed or breaker open) answers nil.
    private func execute(_ arguments: [Data], on connection: RedisConnection?) -> RedisReply? {
        guard let connection else { return nil }
        do {
            let reply = try connection.command(arguments)
            // Every error reply is the server refusing now (`-OOM`, `-LOADING`, `-BUSY`, a proxy's
            // `-ERR Connection refused`): the caller sees a miss or a dropped store.
            if case .error(let text) = reply {
                recordFault(text.hasPrefix("OOM") ? .outOfMemory : .errorReply)
                return nil
            }
            if breaker.recordSuccess() { counters.recordBreaker(open: false) }
            return reply
        } catch {
            connection.isBroken = true
            recordFault(error.kind)
            return nil
        }
    }

    private func recordFault(_ kind: RedisFaultKind) {
        counters.record(.fault(kind))
        if breaker.recordFault() {
            counters.record(.breakerOpened)
            counters.recordBreaker(open: true)
        }
    }
}

/// A continuation resumed by whichever comes first, the command's answer or cancellation; the
/// other is dropped. Either may arrive before the continuation is stored.
final class RedisAnswer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<RedisReply?, Never>?
        var answer: RedisReply??
    }

    private let state = Mutex(State())

    func wait(with continuation: CheckedContinuation<RedisReply?, Never>) {
        let early: RedisReply?? = state.withLock { state in
            guard let answer = state.answer else {
                state.continuation = continuation
                return nil
            }
            return .some(answer)
        }
        if let early { continuation.resume(returning: early) }
    }

    func finish(_ reply: RedisReply?) {
        let continuation: CheckedContinuation<RedisReply?, Never>? = state.withLock { state in
            guard state.answer == nil else { return nil }
            state.answer = .some(reply)
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: reply)
    }
}
