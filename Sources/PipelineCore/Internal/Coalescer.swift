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
///
/// Its bodies are inlinable so that a plugin's coalescer (the HTTP loader's) is specialized for its
/// key in the plugin, as the core's own are: unspecialized, every hash, dictionary lookup and lock
/// goes through witness tables.
public final class Coalescer<Key: Hashable & Sendable, Value: Sendable, Progress: Sendable>: Sendable {
    /// The shared work; `report` hands progress to every joiner.
    @usableFromInline package typealias Work = @Sendable (_ report: @escaping @Sendable (Progress) -> Void) async throws -> Value

    @usableFromInline
    package struct Joiner: Sendable {
        @usableFromInline package let id: UInt64
        @usableFromInline package var continuation: CheckedContinuation<Value, any Error>?
        @usableFromInline package let onProgress: (@Sendable (Progress) -> Void)?

        @inlinable
        package init(id: UInt64, onProgress: (@Sendable (Progress) -> Void)?) {
            self.id = id
            self.onProgress = onProgress
        }
    }

    /// One run of the work and its joiners. Progress goes to the flight itself, never through the
    /// key: a report costs no hashing. Lock order: the coalescer's, then a flight's.
    @usableFromInline
    package final class Flight: Sendable {
        @usableFromInline
        package struct State: Sendable {
            @usableFromInline package var task: Task<Void, Never>?
            @usableFromInline package var joiners: [Joiner] = []
            /// Answers for joiners that had not registered their continuation yet when the work
            /// finished or they left; they pick it up when they register.
            @usableFromInline package var early: [UInt64: Result<Value, any Error>] = [:]
            /// The highest priority any joiner asked for; the task runs at least at this.
            @usableFromInline package var priority: TaskPriority
            /// Finished, or left by its last joiner: it takes no one new.
            @usableFromInline package var isOver = false

            @inlinable
            package init(priority: TaskPriority) { self.priority = priority }
        }

        @usableFromInline package let state: Mutex<State>

        @inlinable
        package init(priority: TaskPriority) {
            state = Mutex(State(priority: priority))
        }
    }

    @usableFromInline
    package struct Registry: Sendable {
        @usableFromInline package var flights: [Key: Flight] = [:]
        @usableFromInline package var nextID: UInt64 = 0
        @usableFromInline package var started = 0

        @inlinable
        package init() {}
    }

    @usableFromInline package let registry = Mutex(Registry())

    public init() {}

    /// Callers waiting for work in flight, all keys together.
    @inlinable
    package var joinerCount: Int {
        registry.withLock { registry in
            registry.flights.values.reduce(0) { count, flight in count + flight.state.withLock { $0.joiners.count } }
        }
    }

    /// How many times work has been started.
    package var startedCount: Int { registry.withLock { $0.started } }

    /// Keys with work in flight.
    package var inFlightCount: Int { registry.withLock { $0.flights.count } }

    /// Callers waiting for the work in flight for `key`.
    package func joinerCount(for key: Key) -> Int {
        registry.withLock { $0.flights[key]?.state.withLock { $0.joiners.count } ?? 0 }
    }

    /// The work's value for `key`, starting `work` unless work for that key already runs, in which
    /// case `work` is dropped and this caller joins it.
    @inlinable
    public func value(
        for key: Key, priority: TaskPriority? = nil,
        onProgress: (@Sendable (Progress) -> Void)? = nil,
        work: @escaping @Sendable (_ report: @escaping @Sendable (Progress) -> Void) async throws -> Value
    ) async throws -> Value {
        try await joinedValue(for: key, priority: priority, onProgress: onProgress, work: work).value
    }

    /// `value(for:priority:onProgress:work:)`, saying whether this caller joined work another had
    /// started (`joined`) rather than starting it.
    @inlinable
    package func joinedValue(
        for key: Key, priority: TaskPriority? = nil,
        onProgress: (@Sendable (Progress) -> Void)? = nil,
        work: @escaping Work
    ) async throws -> (value: Value, joined: Bool) {
        if Task.isCancelled { throw ImagePipeError.cancelled }
        // No explicit priority: the caller's, which is what a task started from here would inherit.
        let priority = priority ?? Task.currentPriority
        let (flight, id, isNew, escalate) = join(key: key, priority: priority, onProgress: onProgress)
        if let escalate { escalate.escalatePriority(to: priority) }
        if isNew { start(flight, key: key, priority: priority, work: work) }
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer = flight.state.withLock { state -> Result<Value, any Error>? in
                    if let early = state.early.removeValue(forKey: id) { return early }
                    guard let index = state.joiners.firstIndex(where: { $0.id == id }) else { return .failure(ImagePipeError.cancelled) }
                    state.joiners[index].continuation = continuation
                    return nil
                }
                // Finished or left before this joiner registered: answer at once.
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            self.leave(flight, key: key, id: id)
        }
        return (value, !isNew)
    }

    /// Adds a joiner to the flight for `key`, or to a new one (`isNew`, which the caller starts);
    /// `escalate` is a running task this joiner's higher priority must raise.
    @inlinable
    package func join(
        key: Key, priority: TaskPriority, onProgress: (@Sendable (Progress) -> Void)?
    ) -> (Flight, id: UInt64, isNew: Bool, escalate: Task<Void, Never>?) {
        registry.withLock { registry in
            registry.nextID += 1
            let id = registry.nextID
            let joiner = Joiner(id: id, onProgress: onProgress)
            if let flight = registry.flights[key] {
                let escalate = flight.state.withLock { state -> Task<Void, Never>?? in
                    guard !state.isOver else { return .none }
                    state.joiners.append(joiner)
                    guard priority > state.priority else { return .some(nil) }
                    state.priority = priority
                    // Not started yet (nil): `start` escalates it once it exists.
                    return .some(state.task)
                }
                if case .some(let task) = escalate { return (flight, id, false, task) }
            }
            let flight = Flight(priority: priority)
            flight.state.withLock { $0.joiners.append(joiner) }
            registry.flights[key] = flight
            registry.started += 1
            return (flight, id, true, nil)
        }
    }

    @inlinable
    package func start(_ flight: Flight, key: Key, priority: TaskPriority, work: @escaping Work) {
        let task = Task(priority: priority) {
            let result: Result<Value, any Error>
            do {
                let value = try await work { progress in Self.report(progress, to: flight) }
                result = .success(value)
            } catch {
                result = .failure(error)
            }
            self.finish(flight, key: key, result: result)
        }
        let (cancelNow, raisedPriority) = flight.state.withLock { state -> (Bool, TaskPriority?) in
            guard !state.isOver else { return (true, nil) }
            state.task = task
            // A higher-priority joiner may have joined between the flight's creation and now.
            return (false, state.priority > priority ? state.priority : nil)
        }
        if cancelNow { task.cancel() }
        if let raisedPriority { task.escalatePriority(to: raisedPriority) }
    }

    @inlinable
    package static func report(_ progress: Progress, to flight: Flight) {
        let joiners = flight.state.withLock { $0.isOver ? [] : $0.joiners }
        for joiner in joiners { joiner.onProgress?(progress) }
    }

    /// Frees the key before answering, so a caller arriving from now on starts the work afresh.
    @inlinable
    package func finish(_ flight: Flight, key: Key, result: Result<Value, any Error>) {
        registry.withLock { registry in
            if registry.flights[key] === flight { registry.flights[key] = nil }
        }
        let continuations = flight.state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard !state.isOver else { return [] }
            state.isOver = true
            var ready: [CheckedContinuation<Value, any Error>] = []
            for joiner in state.joiners {
                if let continuation = joiner.continuation { ready.append(continuation) } else { state.early[joiner.id] = result }
            }
            state.joiners = []
            return ready
        }
        for continuation in continuations { continuation.resume(with: result) }
    }

    @inlinable
    package func leave(_ flight: Flight, key: Key, id: UInt64) {
        let (continuation, taskToCancel, wasLast) = flight.state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, Bool) in
            guard !state.isOver, let index = state.joiners.firstIndex(where: { $0.id == id }) else { return (nil, nil, false) }
            let joiner = state.joiners.remove(at: index)
            if joiner.continuation == nil { state.early[id] = .failure(ImagePipeError.cancelled) }
            guard state.joiners.isEmpty else { return (joiner.continuation, nil, false) }
            // The last joiner left: stop the work and free the key for the next caller.
            state.isOver = true
            return (joiner.continuation, state.task, true)
        }
        if wasLast {
            registry.withLock { registry in
                if registry.flights[key] === flight { registry.flights[key] = nil }
            }
        }
        continuation?.resume(throwing: ImagePipeError.cancelled)
        taskToCancel?.cancel()
    }
}
