import CJXL
import Foundation
import PipelineCore
import Synchronization

/// The frames of an animated JPEG XL, decoded when asked for.
///
/// Opening reads the headers only (canvas, loop count, every frame's duration; libjxl skips the
/// frames' pixel data). libjxl composites frames itself (coalescing), so every frame it gives is
/// the whole canvas. A request for the frame after the one decoded last continues the same
/// decoder; any other rewinds it and skips to the frame, libjxl decoding only the frames that one
/// depends on. The decoder sits behind one `Mutex`: libjxl's decoder is not thread-safe, and
/// frames are asked for from many tasks.
final class JXLAnimationProvider: AnimatedImageProvider {
    let data: Data
    var format: ImageFormat { .jxl }
    let canvasSize: ImageSize
    let pixelFormat: PixelFormat
    let frameCount: Int
    let loopCount: Int
    private let fullSize: ImageSize
    private let durations: [Double]
    private let options: ImageDecodeOptions
    private let state: Mutex<State>

    private struct State: ~Copyable {
        let session: JXLDecoderSession
        /// The frame the decoder gives next.
        var next: Int
    }

    /// Nil when `data` is a still image.
    init?(data: Data, options: ImageDecodeOptions) throws {
        let header = try JXLDecoderSession(data, events: JXL_DEC_BASIC_INFO, JXL_DEC_FRAME, checkpoint: DecodeCheckpoint(options: options))
        let (info, _, _) = try header.readHeader(options: options, colour: false)
        guard info.isAnimated else { return nil }
        try info.checkLimits(options)
        let durations = try header.frameDurations(secondsPerTick: info.secondsPerTick, options: options)
        guard !durations.isEmpty else { throw ImagePipeError.badImageData(reason: "animated JPEG XL has no frames") }
        try options.checkAnimationPixels(frameCount: durations.count, canvas: info.size)
        self.data = data
        fullSize = info.size
        pixelFormat = info.pixelFormat
        frameCount = durations.count
        loopCount = info.loopCount
        self.durations = durations.map(AnimationFrameDuration.clamped)
        canvasSize = options.targetSize(for: info.size, frameCount: durations.count)
        self.options = options
        let session = try JXLDecoderSession(data, events: JXL_DEC_FULL_IMAGE, checkpoint: nil)
        state = Mutex(State(session: session, next: 0))
    }

    func duration(at index: Int) -> Double {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        let count = try PixelBuffer.byteCount(width: fullSize.width, height: fullSize.height, format: pixelFormat)
        var pixels = [UInt8](repeating: 0, count: count)
        try state.withLock { state in
            state.session.stop.use(checkpoint)
            if state.next != index { state.session.rewind(toFrame: index) }
            // Unknown until the frame is out: a failed decode leaves the decoder mid-frame.
            state.next = -1
            let outcome = try pixels.withUnsafeMutableBytes { try state.session.decodeFrame(into: $0, format: pixelFormat) }
            guard outcome == .complete else {
                throw ImagePipeError.badImageData(reason: "JPEG XL animation frame \(index) is truncated or missing")
            }
            state.next = index + 1
        }
        let buffer = try PixelBuffer(width: fullSize.width, height: fullSize.height, format: pixelFormat, bytes: pixels)
        return canvasSize == fullSize ? buffer : buffer.resampled(to: canvasSize)
    }
}
