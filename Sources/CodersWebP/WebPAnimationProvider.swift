import CWebP
import Foundation
import PipelineCore
import Synchronization

/// The frames of an animated WebP, decoded when asked for.
///
/// Opening reads only the container (canvas, loop count, per-frame rectangles and timing). A
/// frame request composites from the nearest key frame at or before it, or continues from the
/// frame composited last when that is closer, so playing in order decodes each frame once and a
/// random seek never replays from frame 0. The demuxer and canvas sit behind one `Mutex`: libwebp
/// objects are not thread-safe, and frames are asked for from many tasks.
final class WebPAnimationProvider: AnimatedImageProvider {
    let data: Data
    var format: ImageFormat { .webp }
    let canvasSize: ImageSize
    let pixelFormat: PixelFormat
    let frameCount: Int
    let loopCount: Int
    private let fullSize: ImageSize
    private let frames: [WebPFrameInfo]
    private let keyFrames: [Int]
    private let state: Mutex<State>
    private let options: ImageDecodeOptions

    private struct State: ~Copyable {
        let demuxer: WebPDemuxer
        var canvas: WebPCanvas
        /// The frame the canvas shows (its disposal not yet applied), or nil when unknown.
        var composited: Int?
    }

    /// Nil when `data` is a WebP without the animation flag.
    init?(data: Data, options: ImageDecodeOptions) throws {
        guard let demuxer = try WebPDemuxer(data), demuxer.isAnimated else { return nil }
        let size = demuxer.canvasSize
        try options.checkPixelLimit(size)
        let count = demuxer.frameCount
        guard count > 0 else { throw ImagePipeError.badImageData(reason: "animated WebP has no frames") }
        try options.checkFrameLimit(count)
        try options.checkAnimationPixels(frameCount: count, canvas: size)
        var frames: [WebPFrameInfo] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            frames.append(try demuxer.withFrame(index) { try WebPFrameInfo($0, canvas: size) })
        }
        self.data = data
        self.fullSize = size
        self.frames = frames
        self.frameCount = count
        // The ANIM chunk's count as stored: 0 plays forever, as in SDWebImage.
        self.loopCount = demuxer.loopCount
        self.keyFrames = WebPFrameInfo.keyFrames(frames, canvas: size)
        let opaque = !demuxer.hasAlphaFlag && frames.allSatisfy { $0.covers(size) && !$0.hasAlpha }
        self.pixelFormat = opaque ? .rgb8 : .rgba8
        // Thumbnails: frames drawn on a canvas are composited at full size and then resampled,
        // because libwebp's scaler would round each sub-rectangle's offset and size on its own and
        // leave seams; opaque full-canvas frames decode at thumbnail size directly.
        self.canvasSize = options.targetSize(for: size, frameCount: count)
        self.state = Mutex(State(demuxer: demuxer, canvas: try WebPCanvas(size: size), composited: nil))
        self.options = options
    }

    func duration(at index: Int) -> Double {
        frames.indices.contains(index) ? frames[index].duration : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        guard frames.indices.contains(index) else {
            throw ImagePipeError.frameOutOfRange(index: index, frameCount: frameCount)
        }
        // Each frame is a decode of its own: its time budget starts here.
        let checkpoint = DecodeCheckpoint(options: options)
        if pixelFormat == .rgb8 {
            // Opaque full-canvas frames replace the canvas entirely (every frame is a key frame):
            // decode the frame alone, as RGB, with no canvas and no conversion, and for a thumbnail
            // straight at the thumbnail's size (one frame alone has no seams to leave).
            try checkpoint.check()
            return try state.withLock { state in
                try state.demuxer.withFrame(index) { iterator in
                    let fragment = iterator.fragmentBytes
                    let features = try WebPPixelDecoder.features(fragment)
                    guard Int(features.width) == fullSize.width, Int(features.height) == fullSize.height else {
                        throw ImagePipeError.badImageData(reason: "WebP frame \(index) bitstream size differs from its ANMF header")
                    }
                    return try WebPPixelDecoder.decode(fragment, as: .rgb8, scaledTo: canvasSize == fullSize ? nil : canvasSize)
                }
            }
        }
        let pixels = try state.withLock { state in try composite(upTo: index, in: &state, checkpoint: checkpoint) }
        var buffer = try PixelBuffer(width: fullSize.width, height: fullSize.height, format: .rgba8, bytes: pixels)
        if canvasSize != fullSize { buffer = buffer.resampled(to: canvasSize) }
        return buffer
    }

    /// Composites from the nearest key frame (or the frame shown) up to `target`, polling
    /// `checkpoint` before each frame decoded.
    private func composite(upTo target: Int, in state: inout State, checkpoint: DecodeCheckpoint) throws -> [UInt8] {
        let key = keyFrames[target]
        let first: Int
        let restarted: Bool
        if let shown = state.composited, shown <= target, shown + 1 >= key {
            if shown == target { return state.canvas.pixels }
            if frames[shown].disposesToBackground { state.canvas.clear(frames[shown]) }
            first = shown + 1
            restarted = false
        } else {
            state.canvas.clearAll()
            first = key
            restarted = true
        }
        // Unknown until the pass completes: a failed decode must not leave a half-drawn canvas
        // that a later request would continue from.
        state.composited = nil
        for index in first...target {
            try checkpoint.check()
            if index > first, frames[index - 1].disposesToBackground { state.canvas.clear(frames[index - 1]) }
            let frame = frames[index]
            let isKey = keyFrames[index] == index
            // As libwebp's WebPAnimDecoder does: a key frame starts from a cleared canvas and is
            // copied, not blended, so even its transparent pixels keep their colour bytes.
            if isKey && !(restarted && index == first) { state.canvas.clearAll() }
            if isKey || !frame.blends || !frame.hasAlpha {
                try state.demuxer.withFrame(index) { [frame] iterator in
                    try state.canvas.decodeReplacing(iterator.fragmentBytes, at: frame)
                }
            } else {
                let pixels = try state.demuxer.withFrame(index) { try WebPPixelDecoder.decode($0.fragmentBytes, as: .rgba8) }
                guard pixels.width == frame.width, pixels.height == frame.height else {
                    throw ImagePipeError.badImageData(reason: "WebP frame \(index) bitstream size differs from its ANMF header")
                }
                state.canvas.draw(pixels, at: frame, blending: true)
            }
        }
        state.composited = target
        return state.canvas.pixels
    }
}
