import Foundation
import Synchronization

/// An animation whose frames are decoded when asked for, as SDWebImage's `SDAnimatedImage` does:
/// the first frame at once (it is the poster), the others lazily through the provider, kept in a
/// small frame cache bounded in bytes.
///
/// `memoryCost` counts the frames held right now, so a 1,000-frame GIF costs what it holds, not
/// what it would cost fully decoded.
public final class AnimatedImage: Sendable {
    package let provider: any AnimatedImageProvider
    package let posterFrame: PixelBuffer
    public let frameCount: Int
    package let loopCount: Int
    /// Seconds each frame is shown, read once from the provider.
    let durations: [Double]
    private let cache: Mutex<FrameCache>

    /// Bytes of frames kept besides the poster by default: 16 MiB, a few seconds of a typical GIF.
    /// Frames past the budget are decoded again when asked for.
    @usableFromInline static let defaultFrameCacheBytes = 16 * 1024 * 1024

    /// Builds the animation and decodes its first frame.
    public convenience init(provider: any AnimatedImageProvider, frameCacheBytes: Int = AnimatedImage.defaultFrameCacheBytes) throws {
        guard provider.frameCount > 0 else {
            throw ImagePipeError.badImageData(reason: "animation has no frames")
        }
        self.init(provider: provider, poster: try provider.frame(at: 0), frameCacheBytes: frameCacheBytes)
    }

    /// An animation whose first frame is already decoded.
    private init(provider: any AnimatedImageProvider, poster: PixelBuffer, frameCacheBytes: Int) {
        self.provider = provider
        self.frameCount = provider.frameCount
        self.loopCount = provider.loopCount
        self.durations = (0..<provider.frameCount).map { provider.duration(at: $0) }
        self.posterFrame = poster
        let frameBytes = max(posterFrame.memoryCost, 1)
        self.cache = Mutex(FrameCache(capacity: max(frameCacheBytes / frameBytes, 1)))
    }

    package var data: Data { provider.data }
    var format: ImageFormat { provider.format }
    package var canvasSize: ImageSize { posterFrame.size }
    var pixelFormat: PixelFormat { posterFrame.format }

    package func duration(at index: Int) -> Double {
        durations.indices.contains(index) ? durations[index] : 0
    }

    /// Total seconds of one loop.
    package var totalDuration: Double { durations.reduce(0, +) }

    /// Frame `index`, from the frame cache when held. With `caching` false a frame not held is
    /// decoded and not kept: one pass over every frame (an encoder writing them in order) then
    /// holds the frame it works on, not the cache's share of canvas-sized frames besides.
    package func frame(at index: Int, caching: Bool = true) throws -> PixelBuffer {
        guard index >= 0, index < frameCount else {
            throw ImagePipeError.frameOutOfRange(index: index, frameCount: frameCount)
        }
        if index == 0 { return posterFrame }
        if let held = cache.withLock({ $0.frame(at: index) }) { return held }
        // Decoded outside the lock: two tasks asking for one frame may both decode it, which costs
        // time but never blocks a reader of another frame behind a slow decode.
        let frame = try provider.frame(at: index)
        if caching { cache.withLock { $0.insert(frame, at: index) } }
        return frame
    }

    /// Bytes of pixels held now: the poster plus cached frames.
    var memoryCost: Int {
        posterFrame.memoryCost + cache.withLock { $0.heldBytes }
    }

    /// Number of frames held now besides the poster.
    var heldFrameCount: Int { cache.withLock { $0.frames.count } }

    /// Decodes every frame and keeps them all (SDWebImage's `preloadAllFrames`): no decoding while
    /// playing, at the cost of memory for all frames.
    func preloadAllFrames() throws {
        cache.withLock { $0.capacity = frameCount }
        for index in 1..<max(frameCount, 1) { _ = try frame(at: index) }
    }

    /// Drops every cached frame but the poster.
    package func unloadAllFrames() {
        cache.withLock { $0.removeAll() }
    }

    /// An animation with every frame passed through `transform`: the poster now (its size is the
    /// new canvas), the others lazily, when asked for.
    package func mapped(_ transform: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer) throws -> AnimatedImage {
        let poster = try transform(posterFrame)
        let provider = MappedAnimationProvider(base: provider, canvasSize: poster.size, transform: transform)
        return AnimatedImage(provider: provider, poster: poster, frameCacheBytes: Self.defaultFrameCacheBytes)
    }
}

/// Frames kept by an `AnimatedImage`, evicting the frame farthest from the one just asked for:
/// playback moves forward, so the frames behind are the least likely to be wanted soon.
struct FrameCache: Sendable {
    var capacity: Int
    var frames: [Int: PixelBuffer] = [:]
    var heldBytes = 0

    init(capacity: Int) { self.capacity = capacity }

    func frame(at index: Int) -> PixelBuffer? { frames[index] }

    mutating func insert(_ frame: PixelBuffer, at index: Int) {
        if let old = frames.updateValue(frame, forKey: index) { heldBytes -= old.memoryCost }
        heldBytes += frame.memoryCost
        while frames.count > capacity, let farthest = frames.keys.max(by: { abs($0 - index) < abs($1 - index) }) {
            if let removed = frames.removeValue(forKey: farthest) { heldBytes -= removed.memoryCost }
        }
    }

    mutating func removeAll() {
        frames.removeAll()
        heldBytes = 0
    }
}

/// A provider whose frames are another's, transformed: orientation and frame-by-frame transformers.
struct MappedAnimationProvider: AnimatedImageProvider {
    let base: any AnimatedImageProvider
    let canvasSize: ImageSize
    let transform: @Sendable (PixelBuffer) throws -> PixelBuffer

    var data: Data { base.data }
    var format: ImageFormat { base.format }
    var pixelFormat: PixelFormat { base.pixelFormat }
    var frameCount: Int { base.frameCount }
    var loopCount: Int { base.loopCount }
    func duration(at index: Int) -> Double { base.duration(at: index) }
    func frame(at index: Int) throws -> PixelBuffer { try transform(try base.frame(at: index)) }
}
