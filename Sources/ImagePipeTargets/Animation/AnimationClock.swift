import Dispatch
import PipelineCore
import Synchronization

/// What drives an `AnimatedImagePlayer`: a time source and a tick source (SDWebImage's
/// `SDDisplayLink`). Injected so playback can be driven by a display refresh, a timer, or — in
/// tests — by hand, without real time passing.
public protocol AnimationClock: Sendable {
    /// Seconds on a monotonic timeline; only differences matter.
    var now: Double { get }

    /// Calls `tick` again and again until the subscription is cancelled. Ticks of one subscription
    /// never overlap.
    func subscribe(_ tick: @escaping @Sendable () -> Void) -> AnimationClockSubscription
}

/// Ends a clock subscription, when cancelled or released.
public final class AnimationClockSubscription: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the ticks; calling it again does nothing.
    public func cancel() {
        onCancel.withLock { handler -> (@Sendable () -> Void)? in
            defer { handler = nil }
            return handler
        }?()
    }

    deinit { cancel() }
}

/// Ticks from an async loop on the cooperative pool, each subscription its own task. Ticks are
/// scheduled against deadlines, not by sleeping one interval after another, so they do not drift;
/// a late tick is not made up for (the player carries the elapsed time over instead).
public struct SystemAnimationClock: AnimationClock {
    /// Seconds between ticks.
    public let interval: Double

    /// 60 ticks a second by default, a display's usual refresh rate: GIF frame delays are multiples
    /// of 10 ms, so faster ticks would gain little.
    public init(ticksPerSecond: Double = 60) {
        interval = 1 / max(ticksPerSecond, 1)
    }

    public var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 }

    public func subscribe(_ tick: @escaping @Sendable () -> Void) -> AnimationClockSubscription {
        let step = Duration.nanoseconds(Int64(interval * 1_000_000_000))
        let task = Task.detached(priority: .high) {
            let clock = ContinuousClock()
            var deadline = clock.now + step
            while !Task.isCancelled {
                do { try await Task.sleep(until: deadline, tolerance: .milliseconds(1), clock: clock) } catch { return }
                tick()
                deadline = max(deadline + step, clock.now)
            }
        }
        return AnimationClockSubscription { task.cancel() }
    }
}

/// A clock that moves only when told to: `advance(by:)` moves time and ticks every subscriber
/// once, on the caller's thread, before it returns.
public final class ManualAnimationClock: AnimationClock {
    private struct State {
        var now: Double = 0
        var subscribers: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(now: Double = 0) {
        state.withLock { $0.now = now }
    }

    public var now: Double { state.withLock { $0.now } }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    public func subscribe(_ tick: @escaping @Sendable () -> Void) -> AnimationClockSubscription {
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = tick
            return state.nextID
        }
        return AnimationClockSubscription { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
    }

    /// Moves time forward by `seconds` and ticks once.
    public func advance(by seconds: Double) {
        let ticks = state.withLock { state in
            state.now += seconds
            return state.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        for tick in ticks { tick() }
    }

    /// Advances `count` times by `step`: a run of regular ticks.
    package func advance(by step: Double, times count: Int) {
        for _ in 0..<max(count, 0) { advance(by: step) }
    }
}
