import Dispatch
import Foundation
import Synchronization

/// A few connections, each owned by a dedicated thread, so a blocking hiredis call never parks a
/// thread of Swift's cooperative pool. Commands wait in one bounded queue; a free connection takes
/// every waiting command (up to `pipelineDepth` commands or `pipelineBytes`) and pipelines them:
/// one write, then the replies in order, each resuming its caller as it arrives. Under load that
/// is one system call per batch instead of one per command, on the client and on the server.
///
/// Faults degrade: a refused connect, a command over the timeout, a closed socket or an error reply
/// answers nil (the caller treats it as a miss or a dropped store), counts as a fault and feeds the
/// circuit breaker; while the breaker is open, commands answer nil without touching the network.
/// A fault that breaks the connection answers the rest of its batch nil too. A full queue
/// (`maxQueuedCommands`) answers nil at once. The worker threads block SIGPIPE, so a write to a
/// closed socket fails with EPIPE instead of ending the process.
final class RedisCommandPool: Sendable {
    private struct Job: Sendable {
        let command: RedisCommand
        let answer: RedisAnswer
    }

    private struct Queue {
        var jobs: [Job] = []
        /// Workers parked on their semaphore, woken one per queued command.
        var idle: [Int] = []
        var closed = false
    }

    /// Commands sent in one write on one connection, and the bytes after which a batch takes no
    /// more (hiredis holds a batch's commands once more in its output buffer until written).
    static let pipelineDepth = 32
    static let pipelineBytes = 1 << 20

    private let queue = Mutex(Queue())
    private let wakeups: [DispatchSemaphore]
    private let configuration: RedisCacheConfiguration
    let breaker: RedisCircuitBreaker
    let counters: RedisCacheCounters

    init(configuration: RedisCacheConfiguration, counters: RedisCacheCounters) {
        self.configuration = configuration
        self.counters = counters
        self.breaker = RedisCircuitBreaker(threshold: configuration.breakerThreshold, cooldown: configuration.breakerCooldown)
        self.wakeups = (0..<max(1, configuration.connections)).map { _ in DispatchSemaphore(value: 0) }
        for index in wakeups.indices {
            let thread = Thread { [self] in self.work(index) }
            thread.name = "imagepipe.redis.\(index)"
            thread.start()
        }
    }

    /// Stops the worker threads once the queued commands are done.
    func close() {
        let parked = queue.withLock { queue in
            queue.closed = true
            defer { queue.idle = [] }
            return queue.idle
        }
        for index in parked { wakeups[index].signal() }
    }

    /// Runs `command` on a pooled connection; nil on any fault, when skipped, or when the calling
    /// task is cancelled (answered at once; a command not yet sent is then not sent).
    func run(_ command: RedisCommand) async -> RedisReply? {
        guard breaker.allows() else {
            counters.record(.skippedBreakerOpen)
            return nil
        }
        let answer = RedisAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(with: continuation)
                if !enqueue(Job(command: command, answer: answer)) {
                    counters.record(.skippedQueueFull)
                    answer.finish(nil)
                }
            }
        } onCancel: {
            answer.finish(nil)
        }
    }

    /// Runs `command` without waiting for it: `done` gets the reply (nil on any fault or when
    /// skipped) on a connection's thread, never on Swift's cooperative pool.
    func submit(_ command: RedisCommand, done: @escaping @Sendable (RedisReply?) -> Void) {
        guard breaker.allows() else {
            counters.record(.skippedBreakerOpen)
            return done(nil)
        }
        let answer = RedisAnswer(done: done)
        if !enqueue(Job(command: command, answer: answer)) {
            counters.record(.skippedQueueFull)
            answer.finish(nil)
        }
    }

    func run(_ arguments: [Data]) async -> RedisReply? {
        await run(RedisCommand(arguments))
    }

    func run(_ arguments: [String]) async -> RedisReply? {
        await run(RedisCommand(arguments))
    }

    /// Commands waiting for a connection.
    var queuedCommands: Int { queue.withLock { $0.jobs.count } }

    private func enqueue(_ job: Job) -> Bool {
        let (accepted, woken): (Bool, Int?) = queue.withLock { queue in
            guard !queue.closed, queue.jobs.count < max(1, configuration.maxQueuedCommands) else { return (false, nil) }
            queue.jobs.append(job)
            return (true, queue.idle.popLast())
        }
        if let woken { wakeups[woken].signal() }
        return accepted
    }

    /// The next batch for worker `index`, parking it while the queue is empty; nil once closed and
    /// drained.
    private func nextBatch(for index: Int) -> [Job]? {
        while true {
            let batch: [Job]?? = queue.withLock { queue in
                if !queue.jobs.isEmpty {
                    var count = 0, bytes = 0
                    while count < min(queue.jobs.count, Self.pipelineDepth), count == 0 || bytes < Self.pipelineBytes {
                        bytes += queue.jobs[count].command.bytes.count
                        count += 1
                    }
                    defer { queue.jobs.removeFirst(count) }
                    return .some(Array(queue.jobs.prefix(count)))
                }
                if queue.closed { return .some(nil) }
                queue.idle.append(index)
                return nil
            }
            if let batch { return batch }
            wakeups[index].wait()
        }
    }

    /// The worker thread: owns one connection, (re)made on demand, dropped after a fault.
    private func work(_ index: Int) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var connection: RedisConnection?
        while let batch = nextBatch(for: index) {
            // A caller that gave up (cancelled) is not sent.
            let jobs = batch.filter { !$0.answer.isFinished }
            guard !jobs.isEmpty else { continue }
            // Queued commands the breaker has since stopped are answered without the network.
            guard !breaker.isCoolingDown else {
                for job in jobs {
                    counters.record(.skippedBreakerOpen)
                    job.answer.finish(nil)
                }
                continue
            }
            if connection == nil {
                do {
                    connection = try RedisConnection(configuration: configuration)
                } catch {
                    recordFault(error.kind)
                    for job in jobs { job.answer.finish(nil) }
                    continue
                }
            }
            if let current = connection, !execute(jobs, on: current) { connection = nil }
        }
    }

    /// Pipelines `jobs` on `connection` and answers each; false when the connection broke.
    private func execute(_ jobs: [Job], on connection: RedisConnection) -> Bool {
        var answered = 0
        do {
            try connection.send(jobs.lazy.map(\.command))
            for job in jobs {
                let reply = try connection.reply()
                answered += 1
                // Every error reply is the server refusing now (`-OOM`, `-LOADING`, `-BUSY`, a
                // proxy's `-ERR Connection refused`): the caller sees a miss or a dropped store.
                if case .error(let text) = reply {
                    recordFault(text.hasPrefix("OOM") ? .outOfMemory : .errorReply)
                    job.answer.finish(nil)
                    continue
                }
                if breaker.recordSuccess() { counters.recordBreaker(open: false) }
                job.answer.finish(reply)
            }
            return true
        } catch {
            recordFault(error.kind)
            for job in jobs[answered...] { job.answer.finish(nil) }
            return false
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

/// A continuation resumed (or `done` called) by whichever comes first, the command's answer or
/// cancellation; the other is dropped. Either may arrive before the continuation is stored.
final class RedisAnswer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<RedisReply?, Never>?
        var answer: RedisReply??
    }

    private let state = Mutex(State())
    private let done: (@Sendable (RedisReply?) -> Void)?

    init(done: (@Sendable (RedisReply?) -> Void)? = nil) {
        self.done = done
    }

    /// Whether the answer (or cancellation) has come.
    var isFinished: Bool { state.withLock { $0.answer != nil } }

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
        let (first, continuation): (Bool, CheckedContinuation<RedisReply?, Never>?) = state.withLock { state in
            guard state.answer == nil else { return (false, nil) }
            state.answer = .some(reply)
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        continuation?.resume(returning: reply)
        if first { done?(reply) }
    }
}
