import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipeTargets
@testable import PipelineCore

/// Solid gray frames (frame i has value i % 256) with chosen durations and loop count; frames listed
/// in `blocked` wait, on a background thread, until `unblock()` is called.
final class TimedFramesProvider: AnimatedImageProvider {
    let durations: [Double]
    let loopCount: Int
    let canvasSize = ImageSize(width: 16, height: 16)
    let decodes = Counter()
    private let blocked: Set<Int>
    private let gate = DispatchSemaphore(value: 0)
    private let released = Mutex(false)

    init(durations: [Double], loopCount: Int = 0, blocked: Set<Int> = []) {
        self.durations = durations
        self.loopCount = loopCount
        self.blocked = blocked
    }

    convenience init(frames: Int, duration: Double = 0.1, loopCount: Int = 0) {
        self.init(durations: Array(repeating: duration, count: frames), loopCount: loopCount)
    }

    var data: Data { Data("timed".utf8) }
    var format: ImageFormat { .gif }
    var pixelFormat: PixelFormat { .gray8 }
    var frameCount: Int { durations.count }
    func duration(at index: Int) -> Double { durations[index] }

    func frame(at index: Int) throws -> PixelBuffer {
        if blocked.contains(index), !released.withLock({ $0 }) {
            gate.wait()
            gate.signal()
        }
        decodes.increment()
        let value = UInt8(index % 256)
        return try PixelBuffer(width: 16, height: 16, format: .gray8, fill: ImageColor(red: value, green: value, blue: value))
    }

    func unblock() {
        released.withLock { $0 = true }
        gate.signal()
    }
}

/// Records what a player hands out.
final class PlayerLog: Sendable {
    private let frames = Mutex<[(time: Double, index: Int)]>([])
    private let loops = Mutex<[Int]>([])
    let finishes = Counter()

    func attach(to player: AnimatedImagePlayer, clock: ManualAnimationClock) {
        player.onFrame = { [clock] index, frame in
            precondition(frame.bytes[0] == UInt8(index % 256), "frame \(index) has the wrong pixels")
            self.frames.withLock { $0.append((clock.now, index)) }
        }
        player.onLoop = { count in self.loops.withLock { $0.append(count) } }
        player.onFinish = { self.finishes.increment() }
    }

    var indices: [Int] { frames.withLock { $0.map(\.index) } }
    var times: [Double] { frames.withLock { $0.map(\.time) } }
    var loopCounts: [Int] { loops.withLock { $0 } }
}

/// A player on a manual clock whose frames are decoded inline, so every tick is deterministic.
private func makePlayer(_ provider: TimedFramesProvider) throws -> (AnimatedImagePlayer, ManualAnimationClock, PlayerLog) {
    let clock = ManualAnimationClock()
    let player = try #require(AnimatedImagePlayer(animation: try AnimatedImage(provider: provider), clock: clock, fetchExecutor: .immediate))
    let log = PlayerLog()
    log.attach(to: player, clock: clock)
    return (player, clock, log)
}

@Suite("Animated image player")
struct AnimatedImagePlayerTests {
    @Test("Each frame shows for its own duration")
    func timings() throws {
        let (player, clock, log) = try makePlayer(TimedFramesProvider(durations: [0.1, 0.2, 0.3]))
        player.play()
        clock.advance(by: 0.05, times: 14)
        #expect(log.indices == [0, 1, 2, 0, 1])
        let expected = [0.05, 0.1, 0.3, 0.6, 0.7]
        #expect(zip(log.times, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "shown at \(log.times)")
    }

    @Test("Playback stops after the loop count, showing the last frame, and plays every loop again when restarted; 0 plays forever")
    func loopCount() throws {
        let (player, clock, log) = try makePlayer(TimedFramesProvider(frames: 3, loopCount: 2))
        #expect(player.totalLoopCount == 2)
        player.play()
        clock.advance(by: 0.1, times: 20)
        #expect(log.indices == [0, 1, 2, 0, 1, 2])
        #expect(log.loopCounts == [1, 2])
        #expect(log.finishes.count == 1)
        #expect(!player.isPlaying)
        #expect(player.currentFrame?.bytes.first == 2, "the last frame stays shown")
        #expect(player.currentFrameIndex == 0 && player.currentLoopCount == 0, "rewound for the next play")
        #expect(clock.subscriberCount == 0, "a stopped player leaves the clock")
        player.play()
        clock.advance(by: 0.1, times: 20)
        #expect(log.indices == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(log.finishes.count == 2)

        let (forever, foreverClock, foreverLog) = try makePlayer(TimedFramesProvider(frames: 3, loopCount: 0))
        forever.play()
        foreverClock.advance(by: 0.1, times: 300)
        #expect(forever.isPlaying && forever.currentLoopCount == 100)
        #expect(foreverLog.finishes.count == 0)
    }

    @Test(
        "Playback modes play frames in their order",
        arguments: [
            (AnimationPlaybackMode.normal, [0, 1, 2, 3, 0, 1, 2, 3, 0], 2),
            (.reverse, [3, 2, 1, 0, 3, 2, 1, 0, 3], 2),
            (.bounce, [0, 1, 2, 3, 2, 1, 0, 1, 2], 1),
            (.reversedBounce, [3, 2, 1, 0, 1, 2, 3, 2, 1], 1),
        ])
    func modes(mode: AnimationPlaybackMode, order: [Int], loops: Int) throws {
        let (player, clock, log) = try makePlayer(TimedFramesProvider(frames: 4))
        player.playbackMode = mode
        player.play()
        // The first tick shows the first frame and, a whole duration having passed, the second.
        clock.advance(by: 0.1, times: 8)
        #expect(log.indices == order)
        #expect(player.currentLoopCount == loops)
    }

    @Test("The rate divides every frame's duration; 0 stops playback")
    func rate() throws {
        let (fast, fastClock, fastLog) = try makePlayer(TimedFramesProvider(frames: 10))
        fast.playbackRate = 2
        fast.play()
        fastClock.advance(by: 0.05, times: 5)
        #expect(fastLog.indices == [0, 1, 2, 3, 4, 5])

        let (slow, slowClock, slowLog) = try makePlayer(TimedFramesProvider(frames: 10))
        slow.playbackRate = 0.5
        slow.play()
        slowClock.advance(by: 0.1, times: 7)
        #expect(slowLog.indices == [0, 1, 2, 3])

        slow.playbackRate = 0
        slowClock.advance(by: 0.1)
        #expect(!slow.isPlaying)
    }

    @Test("A slow tick moves one frame on, never more: the excess time is capped at the next frame's duration")
    func slowTickNeverSkips() throws {
        let (player, clock, log) = try makePlayer(TimedFramesProvider(frames: 10))
        player.play()
        clock.advance(by: 0.01)
        clock.advance(by: 5)
        #expect(log.indices == [0, 1])
        clock.advance(by: 0)
        #expect(log.indices == [0, 1, 2], "the capped excess shows frame 1 for its own duration only")
        clock.advance(by: 0.05)
        #expect(log.indices == [0, 1, 2], "then playback is back to normal speed")
        clock.advance(by: 0.05)
        #expect(log.indices == [0, 1, 2, 3])
    }

    @Test("A frame not decoded yet holds the current one, is fetched in the background, then plays without skipping")
    func bufferMissHolds() async throws {
        let provider = TimedFramesProvider(durations: Array(repeating: 0.1, count: 6), blocked: [2])
        let clock = ManualAnimationClock()
        let player = try #require(AnimatedImagePlayer(animation: try AnimatedImage(provider: provider), clock: clock))
        let log = PlayerLog()
        log.attach(to: player, clock: clock)
        player.play()
        clock.advance(by: 0.01)
        try #require(await eventually { player.frameBuffer.frame(at: 1) != nil })
        clock.advance(by: 0.1)
        #expect(log.indices == [0, 1])
        clock.advance(by: 0.1, times: 5)
        #expect(log.indices == [0, 1], "frame 2 is missing: frame 1 stays")
        #expect(player.isPlaying)
        provider.unblock()
        try #require(await eventually { player.frameBuffer.frame(at: 2) != nil })
        for _ in 0..<40 where log.indices.count < 6 {
            clock.advance(by: 0.1)
            _ = await eventually { player.frameBuffer.frame(at: (player.currentFrameIndex + 1) % 6) != nil }
        }
        let shown = log.indices
        #expect(Array(shown.prefix(6)) == [0, 1, 2, 3, 4, 5], "no frame skipped: \(shown)")
    }

    @Test("Pause keeps the position, stop rewinds, seek shows the frame asked for")
    func pauseStopSeek() throws {
        let (player, clock, log) = try makePlayer(TimedFramesProvider(frames: 8))
        player.play()
        clock.advance(by: 0.1, times: 2)
        #expect(player.currentFrameIndex == 2)
        player.pause()
        clock.advance(by: 0.1, times: 5)
        #expect(player.currentFrameIndex == 2 && !player.isPlaying)
        player.play()
        clock.advance(by: 0.1)
        #expect(player.currentFrameIndex == 3)
        player.seek(toFrame: 6, loopCount: 1)
        #expect(log.indices.last == 6)
        #expect(player.currentFrameIndex == 6 && player.currentLoopCount == 1)
        clock.advance(by: 0.1)
        #expect(player.currentFrameIndex == 7)
        player.stop()
        #expect(player.currentFrameIndex == 0 && player.currentLoopCount == 0 && !player.isPlaying)
    }

    @Test("Players of one animation share one frame buffer, released with the last player")
    func sharedBuffer() throws {
        let animation = try AnimatedImage(provider: TimedFramesProvider(frames: 5))
        let clock = ManualAnimationClock()
        var first = AnimatedImagePlayer(animation: animation, clock: clock, fetchExecutor: .immediate)
        var second = AnimatedImagePlayer(animation: animation, clock: clock, fetchExecutor: .immediate)
        #expect(first?.frameBuffer === second?.frameBuffer)
        #expect(AnimationFrameBufferRegistry.shared.users(of: animation) == 2)
        first = nil
        #expect(AnimationFrameBufferRegistry.shared.users(of: animation) == 1)
        second = nil
        #expect(AnimationFrameBufferRegistry.shared.users(of: animation) == 0)
        #expect(
            AnimatedImagePlayer(animation: try AnimatedImage(provider: TimedFramesProvider(frames: 1)), clock: clock) == nil,
            "one frame is nothing to play")
        _ = (first, second)
    }

    @Test("A 300-frame animation played three times holds at most 10 % of all its frames' memory in the shared buffer")
    func boundedBufferMemory() throws {
        let provider = TimedFramesProvider(frames: 300, loopCount: 3)
        let animation = try AnimatedImage(provider: provider)
        let allFramesBytes = 300 * animation.posterFrame.memoryCost
        let clock = ManualAnimationClock()
        let players = try (0..<2).map { _ in
            let player = try #require(AnimatedImagePlayer(animation: animation, clock: clock, fetchExecutor: .immediate))
            player.maxBufferSize = allFramesBytes / 20
            return player
        }
        let log = PlayerLog()
        log.attach(to: players[0], clock: clock)
        for player in players { player.play() }
        var peak = 0
        for _ in 0..<1_000 {
            clock.advance(by: 0.1)
            peak = max(peak, players[0].frameBuffer.heldBytes)
        }
        #expect(log.loopCounts == [1, 2, 3])
        #expect(log.indices.count == 900, "every frame shown, three times")
        #expect(peak > 0)
        #expect(peak <= allFramesBytes / 10, "peak \(peak) of \(allFramesBytes) bytes")
        #expect(animation.heldFrameCount == 0, "frames are not also kept by the animation's own cache")
    }

    @Test("The automatic budget is min(20 % of total, 60 % of free memory)")
    func automaticBudget() {
        let roomy = "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    900 kB\n"
        #expect(budget(meminfo: roomy) == 200 * 1024)
        let tight = "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    150 kB\n"
        #expect(budget(meminfo: tight) == 90 * 1024)
        #expect(FrameBufferBudget.automatic(total: nil, free: nil, physicalMemory: 5_000) == 1_000)
        #expect(FrameBufferBudget.automatic() > 0)
    }

    @Test("In a container the automatic budget follows the cgroup's limit and room, not the host's")
    func automaticBudgetInContainer() {
        let host = "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    900 kB\n"
        // Limit 500 kB, 400 kB used: min(20 % of 500 kB, 60 % of the 100 kB left).
        #expect(budget(meminfo: host, cgroupV2: ("512000\n", "409600\n")) == 60 * 1024)
        #expect(budget(meminfo: host, cgroupV1: ("512000\n", "409600\n")) == 60 * 1024)
    }

    private func budget(
        meminfo: String, cgroupV2: SystemMemory.CgroupFiles = (nil, nil),
        cgroupV1: SystemMemory.CgroupFiles = (nil, nil)
    ) -> Int {
        FrameBufferBudget.automatic(
            total: SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: cgroupV2.limit, cgroupV1: cgroupV1.limit),
            free: SystemMemory.freeBytes(meminfo: meminfo, cgroupV2: cgroupV2, cgroupV1: cgroupV1), physicalMemory: 0)
    }

    @Test("On the system clock, a player plays through its loops and stops")
    func realClock() async throws {
        let animation = try AnimatedImage(provider: TimedFramesProvider(frames: 3, duration: 0.02, loopCount: 2))
        let player = try #require(AnimatedImagePlayer(animation: animation, clock: SystemAnimationClock(ticksPerSecond: 200)))
        let shown = Mutex<[Int]>([])
        let finished = Counter()
        player.onFrame = { index, _ in shown.withLock { $0.append(index) } }
        player.onFinish = { finished.increment() }
        player.play()
        try #require(await eventually { finished.count == 1 })
        #expect(shown.withLock { $0 } == [0, 1, 2, 0, 1, 2])
        #expect(!player.isPlaying)
    }

    @Test("The system clock ticks until cancelled")
    func systemClock() async throws {
        let ticks = Counter()
        let subscription = SystemAnimationClock(ticksPerSecond: 100).subscribe { ticks.increment() }
        try #require(await eventually { ticks.count >= 3 })
        subscription.cancel()
        let stopped = ticks.count
        let more = await eventually(timeout: .milliseconds(200)) { ticks.count > stopped + 1 }
        #expect(!more, "at most one tick already under way after cancel")
    }
}
