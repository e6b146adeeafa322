import Synchronization

/// Runs one piece of work per key at a time and hands its result to every caller that asks for the
/// same key while it runs (Nuke's task coalescing). Each caller is a subscriber:
///
/// - a subscriber whose task is cancelled gets `ImagePipeError.cancelled` at once and leaves; the
///   work goes on for the others;
/// - the work is cancelled only when its last subscriber leaves;
/// - once the work finishes, the key is free: the next caller starts it again.
///
/// Subscribers also receive the work's progress events while they are subscribed. The work runs at
/// the highest priority of its subscribers: a high-priority request joining low-priority work
/// escalates it (Nuke does the same), rather than waiting behind it at the priority it began with.
final class CoalescingStage<Key: Hashable & Sendable, Value: Sendable, Event: Sendable>: Sendable {
    typealias Work = @Sendable (_ emit: @escaping @Sendable (Event) -> Void) async throws -> Value

    private struct Subscriber {
        var continuation: CheckedContinuation<Value, any Error>?
        var onEvent: (@Sendable (Event) -> Void)?
    }

    private struct Entry {
        let generation: UInt64
        var task: Task<Void, Never>?
        var subscribers: [UInt64: Subscriber] = [:]
        /// The highest priority any subscriber asked for; the task runs at least at this.
        var priority: TaskPriority
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Answers for subscribers that had not registered their continuation yet when the work
        /// finished or they were cancelled; they pick it up when they register.
        var pending: [UInt64: Result<Value, any Error>] = [:]
        var nextID: UInt64 = 0
        /// Number of times work was started, for tests and diagnostics.
        var started = 0
    }

    private let state = Mutex(State())

    /// How many times work has been started.
    var startedCount: Int { state.withLock { $0.started } }

    /// Keys with work in flight.
    var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// Callers waiting for the work in flight for `key`.
    func subscriberCount(for key: Key) -> Int { state.withLock { $0.entries[key]?.subscribers.count ?? 0 } }

    /// The work's value for `key`, starting `work` unless it already runs for that key.
    func value(
        for key: Key, priority: TaskPriority? = nil,
        onEvent: (@Sendable (Event) -> Void)? = nil,
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
            state.entries[key]!.subscribers[id] = Subscriber(onEvent: onEvent)
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
                    guard state.entries[key]?.generation == generation, state.entries[key]?.subscribers[id] != nil else {
                        return .failure(ImagePipeError.cancelled)
                    }
                    state.entries[key]!.subscribers[id]!.continuation = continuation
                    return nil
                }
                // Finished or cancelled before this subscriber registered: answer at once.
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
                let value = try await work { [weak self] event in self?.broadcast(event, key: key, generation: generation) }
                result = .success(value)
            } catch {
                result = .failure(error)
            }
            self.finish(key: key, generation: generation, result: result)
        }
        let (cancelNow, raisedPriority) = state.withLock { state -> (Bool, TaskPriority?) in
            guard state.entries[key]?.generation == generation else { return (true, nil) }
            state.entries[key]!.task = task
            // A higher-priority subscriber may have joined between the entry's creation and now.
            let raised = state.entries[key]!.priority > priority ? state.entries[key]!.priority : nil
            return (state.entries[key]!.subscribers.isEmpty, raised)
        }
        if cancelNow { task.cancel() }
        if let raisedPriority { task.escalatePriority(to: raisedPriority) }
    }

    private func broadcast(_ event: Event, key: Key, generation: UInt64) {
        let handlers = state.withLock { state -> [@Sendable (Event) -> Void] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            return entry.subscribers.values.compactMap(\.onEvent)
        }
        for handler in handlers { handler(event) }
    }

    private func finish(key: Key, generation: UInt64, result: Result<Value, any Error>) {
        let continuations = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            var ready: [CheckedContinuation<Value, any Error>] = []
            for (id, subscriber) in entry.subscribers {
                if let continuation = subscriber.continuation { ready.append(continuation) } else { state.pending[id] = result }
            }
            return ready
        }
        for continuation in continuations { continuation.resume(with: result) }
    }

    private func leave(key: Key, generation: UInt64, id: UInt64) {
        let (continuation, taskToCancel) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], entry.generation == generation,
                  let subscriber = entry.subscribers.removeValue(forKey: id)
            else { return (nil, nil) }
            if subscriber.continuation == nil { state.pending[id] = .failure(ImagePipeError.cancelled) }
            if entry.subscribers.isEmpty {
                // The last subscriber left: stop the work and free the key for the next caller.
                state.entries[key] = nil
                return (subscriber.continuation, entry.task)
            }
            state.entries[key] = entry
            return (subscriber.continuation, nil)
        }
        continuation?.resume(throwing: ImagePipeError.cancelled)
        taskToCancel?.cancel()
    }
}
