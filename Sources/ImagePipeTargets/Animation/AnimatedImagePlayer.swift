import ImagePipe
import PipelineCore
import Synchronization

/// Plays an animation against a clock (SDWebImage's `SDAnimatedImagePlayer`): which frame shows,
/// when, and how many loops have played. It draws nothing; `onFrame` hands each frame to whoever does.
///
/// Each tick adds the time since the last one; once the current frame's duration ÷ rate has passed,
/// playback moves one frame on. Never more than one: the time left over is capped at the next
/// frame's duration, so a slow tick delays the animation instead of skipping frames. A frame not
/// yet decoded holds the current one on screen while the buffer fetches it.
public final class AnimatedImagePlayer: Sendable {
    public let animation: AnimatedImage
    /// Shared with every other player of the same animation.
    let frameBuffer: AnimationFrameBuffer
    private let clock: any AnimationClock
    /// Bytes of one decoded frame, for turning the byte budget into a frame count.
    private let frameBytes: Int

    private struct State {
        var position: PlaybackPosition
        var loopCount = 0
        /// Seconds the current frame has been shown.
        var elapsed: Double = 0
        var lastTick: Double?
        var subscription: AnimationClockSubscription?
        var currentFrame: PixelBuffer?
        /// The current frame changed (start, seek) and has not been handed out yet.
        var needsDisplay = true
        var playbackRate: Double = 1
        var totalLoopCount: Int
        var maxBufferSize = 0
        var onFrame: (@Sendable (Int, PixelBuffer) -> Void)?
        var onLoop: (@Sendable (Int) -> Void)?
        var onFinish: (@Sendable () -> Void)?
    }

    private enum Event {
        case frame(Int, PixelBuffer)
        case loop(Int)
        case finished
    }

    private let state: Mutex<State>
    /// Frame durations below this count as "elapsed": tick sums of 0.1 s are not exact in binary.
    private static let tolerance = 1e-9

    /// Nil for an animation of one frame: there is nothing to play (SDWebImage refuses those too).
    /// `fetchExecutor` is where the shared buffer decodes frames, if this player creates it.
    public init?(
        animation: AnimatedImage, clock: any AnimationClock = SystemAnimationClock(),
        fetchExecutor: (any CallbackExecutor)? = nil
    ) {
        guard animation.frameCount > 1 else { return nil }
        self.animation = animation
        self.clock = clock
        self.frameBytes = max(animation.posterFrame.memoryCost, 1)
        self.frameBuffer = AnimationFrameBufferRegistry.shared.acquire(animation, fetchExecutor: fetchExecutor)
        state = Mutex(
            State(
                position: PlaybackPosition(frameCount: animation.frameCount, mode: .normal),
                totalLoopCount: animation.loopCount))
    }

    public convenience init?(
        image: Image, clock: any AnimationClock = SystemAnimationClock(),
        fetchExecutor: (any CallbackExecutor)? = nil
    ) {
        guard let animation = image.animation else { return nil }
        self.init(animation: animation, clock: clock, fetchExecutor: fetchExecutor)
    }

    deinit {
        state.withLock { $0.subscription }?.cancel()
        AnimationFrameBufferRegistry.shared.release(frameBuffer)
    }

    // MARK: Settings

    /// Speed: 2 plays twice as fast. 0 or less stops playback at the next tick.
    public var playbackRate: Double {
        get { state.withLock { $0.playbackRate } }
        set { state.withLock { $0.playbackRate = newValue } }
    }

    /// Changing the mode restarts from the mode's first frame.
    public var playbackMode: AnimationPlaybackMode {
        get { state.withLock { $0.position.mode } }
        set {
            state.withLock { state in
                guard state.position.mode != newValue else { return }
                state.position = PlaybackPosition(frameCount: animation.frameCount, mode: newValue)
                state.elapsed = 0
                state.needsDisplay = true
            }
        }
    }

    /// Loops to play before stopping; 0 means forever. Default: the animation's own loop count.
    public var totalLoopCount: Int {
        get { state.withLock { $0.totalLoopCount } }
        set { state.withLock { $0.totalLoopCount = max(newValue, 0) } }
    }

    /// Bytes of decoded frames the shared buffer may hold for this player; 0 (the default) means
    /// SDWebImage's automatic budget: min(20 % of total memory, 60 % of free memory), as a
    /// container's cgroup allows.
    public var maxBufferSize: Int {
        get { state.withLock { $0.maxBufferSize } }
        set { state.withLock { $0.maxBufferSize = max(newValue, 0) } }
    }

    /// Called with each frame to show, on the clock's tick thread (or the caller's for `seek`).
    public var onFrame: (@Sendable (_ index: Int, _ frame: PixelBuffer) -> Void)? {
        get { state.withLock { $0.onFrame } }
        set { state.withLock { $0.onFrame = newValue } }
    }

    /// Called with the number of loops played each time one completes.
    public var onLoop: (@Sendable (_ loopCount: Int) -> Void)? {
        get { state.withLock { $0.onLoop } }
        set { state.withLock { $0.onLoop = newValue } }
    }

    /// Called when playback stops by itself after `totalLoopCount` loops.
    public var onFinish: (@Sendable () -> Void)? {
        get { state.withLock { $0.onFinish } }
        set { state.withLock { $0.onFinish = newValue } }
    }

    // MARK: State

    public var currentFrameIndex: Int { state.withLock { $0.position.index } }
    public var currentLoopCount: Int { state.withLock { $0.loopCount } }
    /// The frame shown now; nil before the first tick.
    public var currentFrame: PixelBuffer? { state.withLock { $0.currentFrame } }
    public var isPlaying: Bool { state.withLock { $0.subscription != nil } }

    // MARK: Control

    /// Starts or resumes playback from where it is.
    public func play() {
        let (started, index, direction) = state.withLock { state -> (Bool, Int, Int) in
            guard state.subscription == nil else { return (false, 0, 1) }
            state.lastTick = clock.now
            return (true, state.position.index, state.position.direction)
        }
        guard started else { return }
        updateBufferCount()
        frameBuffer.prefetch(index, direction: direction)
        frameBuffer.prefetch(state.withLock { $0.position.next().position.index }, direction: direction)
        let subscription = clock.subscribe { [weak self] in self?.tick() }
        let duplicate = state.withLock { state -> Bool in
            guard state.subscription == nil else { return true }
            state.subscription = subscription
            return false
        }
        if duplicate { subscription.cancel() }
    }

    /// Stops the ticks, keeping the position.
    public func pause() {
        state.withLock { state -> AnimationClockSubscription? in
            defer { state.subscription = nil }
            return state.subscription
        }?.cancel()
    }

    /// Stops and goes back to the first frame and loop 0.
    public func stop() {
        pause()
        state.withLock { state in
            state.position = PlaybackPosition(frameCount: animation.frameCount, mode: state.position.mode)
            state.loopCount = 0
            state.elapsed = 0
            state.needsDisplay = true
        }
    }

    /// Jumps to a frame and loop, decoding the frame now if the buffer lacks it, and hands it to
    /// `onFrame` (SDWebImage's `seekToFrameAtIndex:loopCount:`).
    public func seek(toFrame index: Int, loopCount: Int = 0) {
        guard index >= 0, index < animation.frameCount else { return }
        let frame = try? frameBuffer.loadFrame(at: index)
        let (handler, next) = state.withLock { state -> ((@Sendable (Int, PixelBuffer) -> Void)?, PlaybackPosition) in
            state.position = PlaybackPosition(frameCount: animation.frameCount, mode: state.position.mode, index: index)
            state.loopCount = max(loopCount, 0)
            state.elapsed = 0
            state.lastTick = clock.now
            let next = state.position.next().position
            guard let frame else { return (nil, next) }
            state.currentFrame = frame
            state.needsDisplay = false
            return (state.onFrame, next)
        }
        frameBuffer.prefetch(next.index, direction: next.direction)
        if let frame { handler?(index, frame) }
    }

    /// Drops the decoded frames of the shared buffer.
    func clearFrameBuffer() { frameBuffer.removeAll() }

    // MARK: Ticks

    private func tick() {
        let now = clock.now
        var events: [Event] = []
        var fetch: (index: Int, direction: Int)?
        var finished = false
        let handlers = state.withLock { state -> (frame: (@Sendable (Int, PixelBuffer) -> Void)?, loop: (@Sendable (Int) -> Void)?, finish: (@Sendable () -> Void)?) in
            let handlers = (state.onFrame, state.onLoop, state.onFinish)
            guard state.subscription != nil else { return handlers }
            guard state.playbackRate > 0 else {
                finished = true
                return handlers
            }
            let delta = max(now - (state.lastTick ?? now), 0)
            state.lastTick = now
            let current = state.position.index
            let (next, completesLoop) = state.position.next()
            if state.needsDisplay {
                if let frame = frameBuffer.frame(at: current) {
                    state.currentFrame = frame
                    state.needsDisplay = false
                    events.append(.frame(current, frame))
                } else {
                    fetch = (current, state.position.direction)
                    return handlers
                }
            }
            state.elapsed += delta
            let currentDuration = animation.duration(at: current) / state.playbackRate
            // Not due yet, or due but not decoded yet (a buffer miss: hold this frame; the time keeps
            // adding up and is capped once the frame arrives).
            guard state.elapsed + Self.tolerance >= currentDuration, let nextFrame = frameBuffer.frame(at: next.index) else {
                fetch = (next.index, next.direction)
                return handlers
            }
            state.elapsed = min(state.elapsed - currentDuration, animation.duration(at: next.index) / state.playbackRate)
            if completesLoop {
                state.loopCount += 1
                events.append(.loop(state.loopCount))
                if state.totalLoopCount != 0 && state.loopCount >= state.totalLoopCount {
                    // As SDWebImage: the last frame stays on screen, but the position rewinds so
                    // that playing again plays every loop again.
                    finished = true
                    events.append(.finished)
                    state.position = PlaybackPosition(frameCount: animation.frameCount, mode: state.position.mode)
                    state.loopCount = 0
                    state.elapsed = 0
                    state.needsDisplay = true
                    return handlers
                }
            }
            state.position = next
            state.currentFrame = nextFrame
            events.append(.frame(next.index, nextFrame))
            let following = next.next().position
            fetch = (following.index, following.direction)
            return handlers
        }
        if finished { pause() }
        if let fetch {
            updateBufferCount()
            frameBuffer.prefetch(fetch.index, direction: fetch.direction)
        }
        for event in events {
            switch event {
            case .frame(let index, let frame): handlers.frame?(index, frame)
            case .loop(let count): handlers.loop?(count)
            case .finished: handlers.finish?()
            }
        }
    }

    /// SDWebImage recomputes the buffer size as playback goes, so a changed budget applies at once.
    private func updateBufferCount() {
        let budget = state.withLock { $0.maxBufferSize }
        let bytes = budget > 0 ? budget : Self.automaticBudget
        frameBuffer.maxBufferCount = max(bytes / frameBytes, 1)
    }

    /// Read once: /proc/meminfo changes all the time, and a buffer that resized on every tick would
    /// thrash.
    private static let automaticBudget = FrameBufferBudget.automatic()
}
