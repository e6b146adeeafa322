/// The order frames play in (SDWebImage's `SDAnimatedImagePlaybackMode`).
import PipelineCore

public enum AnimationPlaybackMode: Sendable, Hashable, CaseIterable {
    /// First to last, then again.
    case normal
    /// Last to first, then again.
    case reverse
    /// First to last and back: 0 1 2 3 2 1, then again.
    case bounce
    /// Last to first and back: 3 2 1 0 1 2, then again.
    case reversedBounce
}

/// Where playback is, and the step rule of each mode. A loop ends when playback comes back to the
/// mode's first frame.
struct PlaybackPosition: Sendable, Equatable {
    let frameCount: Int
    let mode: AnimationPlaybackMode
    var index: Int
    /// In a bounce, whether playback is on its way back down.
    var descending: Bool

    init(frameCount: Int, mode: AnimationPlaybackMode) {
        self.frameCount = frameCount
        self.mode = mode
        index = Self.startIndex(frameCount: frameCount, mode: mode)
        descending = mode == .reverse || mode == .reversedBounce
    }

    init(frameCount: Int, mode: AnimationPlaybackMode, index: Int) {
        self.init(frameCount: frameCount, mode: mode)
        self.index = min(max(index, 0), frameCount - 1)
        if mode == .bounce || mode == .reversedBounce {
            descending = self.index == frameCount - 1 || (mode == .reversedBounce && self.index != 0)
        }
    }

    static func startIndex(frameCount: Int, mode: AnimationPlaybackMode) -> Int {
        mode == .reverse || mode == .reversedBounce ? frameCount - 1 : 0
    }

    var startIndex: Int { Self.startIndex(frameCount: frameCount, mode: mode) }

    /// The position after this one, and whether reaching it completes a loop.
    func next() -> (position: PlaybackPosition, completesLoop: Bool) {
        var next = self
        switch mode {
        case .normal:
            next.index = (index + 1) % frameCount
        case .reverse:
            next.index = index == 0 ? frameCount - 1 : index - 1
        case .bounce, .reversedBounce:
            if index == 0 { next.descending = false } else if index == frameCount - 1 { next.descending = true }
            next.index = next.descending ? index - 1 : index + 1
        }
        return (next, next.index == startIndex)
    }

    /// +1 when playback moves to higher indices, -1 when to lower ones: which neighbours to prefetch
    /// and which are farthest.
    var direction: Int {
        switch mode {
        case .normal: 1
        case .reverse: -1
        case .bounce, .reversedBounce:
            (index == frameCount - 1 || (descending && index != 0)) ? -1 : 1
        }
    }
}
