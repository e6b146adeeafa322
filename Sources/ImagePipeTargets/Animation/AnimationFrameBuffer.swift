import Dispatch
import ImagePipe
import PipelineCore
import Synchronization

/// Decoded frames of one animation, shared by every player of it (SDWebImage's `SDImageFramePool`):
/// ten views showing one GIF decode each frame once, not ten times.
///
/// Bounded to `maxBufferCount` frames: inserting past it evicts the frame farthest ahead of the
/// one last asked for, counting in the direction of playback, so the frames just played go first
/// and the ones about to play stay. Missing frames are decoded in the background, one at a time, so
/// prefetching never takes more than one core from decoding the images being loaded.
///
/// Frames come straight from the provider, not through `AnimatedImage.frame(at:)`, so a frame is
/// never held twice (here and in the animation's own cache). Frame 0 is the poster, which the
/// animation always holds; it is not counted.
final class AnimationFrameBuffer: Sendable {
    let animation: AnimatedImage

    private struct State {
        var frames: [Int: PixelBuffer] = [:]
        var heldBytes = 0
        var maxBufferCount = 1
        var pending: [Int] = []
        var fetching = false
        /// The frame last asked for and the playback direction there: what "farthest" is measured from.
        var anchor = 0
        var direction = 1
    }

    private let state = Mutex(State())
    private let fetchExecutor: any CallbackExecutor

    /// Fetches waiting beyond this are dropped, oldest first: by the time they would run, playback
    /// has moved on.
    static let maxPendingFetches = 4

    /// - Parameter fetchExecutor: where frames are decoded; must run one job at a time. Default: a
    ///   serial background queue.
    init(animation: AnimatedImage, fetchExecutor: (any CallbackExecutor)? = nil) {
        self.animation = animation
        self.fetchExecutor =
            fetchExecutor
            ?? DispatchQueueCallbackExecutor(DispatchQueue(label: "ImagePipe.AnimationFrameBuffer", qos: .utility))
    }

    /// The frame, if held now.
    func frame(at index: Int) -> PixelBuffer? {
        if index == 0 { return animation.posterFrame }
        return state.withLock { $0.frames[index] }
    }

    /// Frames held besides the poster.
    var heldFrameCount: Int { state.withLock { $0.frames.count } }

    /// Bytes of the frames held besides the poster.
    var heldBytes: Int { state.withLock { $0.heldBytes } }

    /// Frames the buffer keeps at most besides the poster, at least 1.
    var maxBufferCount: Int {
        get { state.withLock { $0.maxBufferCount } }
        set {
            state.withLock { state in
                state.maxBufferCount = max(newValue, 1)
                Self.evict(&state, frameCount: animation.frameCount)
            }
        }
    }

    /// Decodes `index` in the background unless it is held or already on its way.
    func prefetch(_ index: Int, direction: Int = 1) {
        guard index > 0, index < animation.frameCount else { return }
        let startsFetching = state.withLock { state -> Bool in
            state.anchor = index
            state.direction = direction >= 0 ? 1 : -1
            guard state.frames[index] == nil, !state.pending.contains(index) else { return false }
            state.pending.append(index)
            if state.pending.count > Self.maxPendingFetches { state.pending.removeFirst() }
            guard !state.fetching else { return false }
            state.fetching = true
            return true
        }
        if startsFetching { fetchExecutor.execute { [self] in drainFetches() } }
    }

    /// The frame, decoded now on the caller's thread if not held (for seeking).
    func loadFrame(at index: Int) throws -> PixelBuffer {
        if let held = frame(at: index) { return held }
        let frame = try animation.provider.frame(at: index)
        insert(frame, at: index)
        return frame
    }

    /// Drops every held frame (SDWebImage's `clearFrameBuffer`).
    func removeAll() {
        state.withLock { state in
            state.frames.removeAll()
            state.heldBytes = 0
        }
    }

    private func drainFetches() {
        while let index = nextFetch() {
            // A frame that fails to decode stays missing: the player holds the frame before it, as
            // SDWebImage does, rather than showing garbage.
            if let frame = try? animation.provider.frame(at: index) { insert(frame, at: index) }
        }
    }

    private func nextFetch() -> Int? {
        state.withLock { state in
            while !state.pending.isEmpty {
                let index = state.pending.removeFirst()
                if state.frames[index] == nil { return index }
            }
            state.fetching = false
            return nil
        }
    }

    private func insert(_ frame: PixelBuffer, at index: Int) {
        state.withLock { state in
            if let old = state.frames.updateValue(frame, forKey: index) { state.heldBytes -= old.memoryCost }
            state.heldBytes += frame.memoryCost
            Self.evict(&state, frameCount: animation.frameCount)
        }
    }

    private static func evict(_ state: inout State, frameCount: Int) {
        let (anchor, direction) = (state.anchor, state.direction)
        func distance(_ index: Int) -> Int { (((index - anchor) * direction) % frameCount + frameCount) % frameCount }
        while state.frames.count > state.maxBufferCount, let farthest = state.frames.keys.max(by: { distance($0) < distance($1) }) {
            if let removed = state.frames.removeValue(forKey: farthest) { state.heldBytes -= removed.memoryCost }
        }
    }
}

/// The frame buffers in use, one per animation, ref-counted by the players holding them.
final class AnimationFrameBufferRegistry: Sendable {
    static let shared = AnimationFrameBufferRegistry()

    private struct Entry {
        let buffer: AnimationFrameBuffer
        var users: Int
    }

    // Keyed by identity: the entry holds its animation strongly, so the identifier cannot be reused
    // while the entry exists.
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// The buffer of `animation`, made on first use with `fetchExecutor`.
    func acquire(_ animation: AnimatedImage, fetchExecutor: (any CallbackExecutor)?) -> AnimationFrameBuffer {
        entries.withLock { entries in
            let id = ObjectIdentifier(animation)
            var entry = entries[id] ?? Entry(buffer: AnimationFrameBuffer(animation: animation, fetchExecutor: fetchExecutor), users: 0)
            entry.users += 1
            entries[id] = entry
            return entry.buffer
        }
    }

    func release(_ buffer: AnimationFrameBuffer) {
        entries.withLock { entries in
            let id = ObjectIdentifier(buffer.animation)
            guard var entry = entries[id], entry.buffer === buffer else { return }
            entry.users -= 1
            entries[id] = entry.users > 0 ? entry : nil
        }
    }

    func users(of animation: AnimatedImage) -> Int {
        entries.withLock { $0[ObjectIdentifier(animation)]?.users ?? 0 }
    }
}
