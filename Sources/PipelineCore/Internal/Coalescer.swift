import Synchronization

/// Runs one piece of work per key at a time and hands its result to every caller that asks for the
/// same key while it runs (Nuke's task coalescing). The manager shares downloads, decodes and
/// transforms through it, the disk cache its reads, the HTTP loader its transfers; a loader plugin
/// may share its own work the same way. Each caller is a joiner:
///
/// - a joiner whose task is cancelled gets `ImagePipeError.cancelled` at once and leaves; the work
///   goes on for the others;
/// - the work is cancelled only when its last joiner leaves;
/// - once the work finishes or is cancelled, the key is free: the next caller starts it again.
///
/// Joiners receive the work's progress while they are joined, each through its own handler. The
/// work runs at the highest priority of its joiners: a high-priority request joining low-priority
/// work escalates it (Nuke does the same), rather than waiting behind it at the priority it began with.
public final class Coalescer<Key: Hashable & Sendable, Value: Sendable, Progress: Sendable>: Sendable {
    /// The shared work; `report` hands progress to every joiner.
    public typealias Work = @Sendable (_ report: @escaping @Sendable (Progress) -> Void) async throws -> Value

    private struct Joiner {
        var continuation: CheckedContinuation<Value, any Error>?
        var onProgress: (@Sendable (Progress) -> Void)?
    }

    private struct Entry {
        let generation: UInt64
        var task: Task<Void, Never>?
        var joiners: [UInt64: Joiner] = [:]
        /// The highest priority any joiner asked for; the task runs at least at this.
        var priority: TaskPriority
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Answers for joiners that had not registered their continuation yet when the work
        /// finished or they were cancelled; they pick it up when they register.
        var pending: [UInt64: Result<Value, any Error>] = [:]
        var nextID: UInt64 = 0
        var started = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times work has been started.
    var startedCount: Int { state.withLock { $0.started } }

    /// Keys with work in flight.
    var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// Callers waiting for work in flight, all keys together.
    public var joinerCount: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.joiners.count } } }

    /// Callers waiting for the work in flight for `key`.
    func joinerCount(for key: Key) -> Int { state.withLock { $0.entries[key]?.joiners.count ?? 0 } }

    /// The work's value for `key`, starting `work` unless work for that key already runs, in which
    /// case `work` is dropped and this caller joins it.
    public func value(
        for key: Key, priority: TaskPriority? = nil,
        onProgress: (@Sendable (Progress) -> Void)? = nil,
        work: @escaping Work
    ) async throws -> Value {
        if Task.isCancelled { throw ImagePipeError.cancelled }
        // No explicit priority: the caller's, which is what a task started from here would inherit.
        let priority = priority ?? Task.currentPriority
        let (id, generation, escalate) = state.withLock { state -> (UInt64, UInt64, Task<Void, Never>?) in
            state.nextID += 1
            let id = state.nextID
            if state.entries[key] == nil {
                state.entries[key] = Entry(generation: id, priority: priority)
                state.started += 1
            }
            state.entries[key]!.joiners[id] = Joiner(onProgress: onProgress)
            var escalate: Task<Void, Never>?
            if priority > state.entries[key]!.priority {
                state.entries[key]!.priority = priority
                // Not started yet (nil): `start` escalates it once it exists.
                escalate = state.entries[key]!.task
            }
            return (id, state.entries[key]!.generation, escalate)
        }
        if let escalate { escalate.escalatePriority(to: priority) }
        if generation == id { start(key: key, generation: generation, priority: priority, work: work) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer = state.withLock { state -> Result<Value, any Error>? in
                    if let pending = state.pending.removeValue(forKey: id) { return pending }
                    guard state.entries[key]?.generation == generation, state.entries[key]?.joiners[id] != nil else {
                        return .failure(ImagePipeError.cancelled)
                    }
                    state.entries[key]!.joiners[id]!.continuation = continuation
                    return nil
                }
                // Finished or cancelled before this joiner registered: answer at once.
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            self.leave(key: key, generation: generation, id: id)
        }
    }

    private func start(key: Key, generation: UInt64, priority: TaskPriority, work: @escaping Work) {
        let task = Task(priority: priority) {
            let result: Result<Value, any Error>
            do {
                let value = try await work { [weak self] progress in self?.report(progress, key: key, generation: generation) }
                result = .success(value)
            } catch {
                result = .failure(error)
            }
            self.finish(key: key, generation: generation, result: result)
        }
        let (cancelNow, raisedPriority) = state.withLock { state -> (Bool, TaskPriority?) in
            guard state.entries[key]?.generation == generation else { return (true, nil) }
            state.entries[key]!.task = task
            // A higher-priority joiner may have joined between the entry's creation and now.
            let raised = state.entries[key]!.priority > priority ? state.entries[key]!.priority : nil
            return (state.entries[key]!.joiners.isEmpty, raised)
        }
        if cancelNow { task.cancel() }
        if let raisedPriority { task.escalatePriority(to: raisedPriority) }
    }

    private func report(_ progress: Progress, key: Key, generation: UInt64) {
        let handlers = state.withLock { state -> [@Sendable (Progress) -> Void] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            return entry.joiners.values.compactMap(\.onProgress)
        }
        for handler in handlers { handler(progress) }
    }

    /// Frees the key before answering, so a caller arriving from now on starts the work afresh.
    private func finish(key: Key, generation: UInt64, result: Result<Value, any Error>) {
        let continuations = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            var ready: [CheckedContinuation<Value, any Error>] = []
            for (id, joiner) in entry.joiners {
                if let continuation = joiner.continuation { ready.append(continuation) } else { state.pending[id] = result }
            }
            return ready
        }
        for continuation in continuations { continuation.resume(with: result) }
    }

    private func leave(key: Key, generation: UInt64, id: UInt64) {
        let (continuation, taskToCancel) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], entry.generation == generation,
                  let joiner = entry.joiners.removeValue(forKey: id)
            else { return (nil, nil) }
            if joiner.continuation == nil { state.pending[id] = .failure(ImagePipeError.cancelled) }
            if entry.joiners.isEmpty {
                // The last joiner left: stop the work and free the key for the next caller.
                state.entries[key] = nil
                return (joiner.continuation, entry.task)
            }
            state.entries[key] = entry
            return (joiner.continuation, nil)
        }
        continuation?.resume(throwing: ImagePipeError.cancelled)
        taskToCancel?.cancel()
    }
}
