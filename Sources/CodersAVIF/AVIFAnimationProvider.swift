import CAVIF
import Foundation
import PipelineCore
import Synchronization

/// The frames of an AVIF image sequence (`avis`), decoded when asked for.
///
/// Every frame of a sequence covers the whole canvas, so there is nothing to composite: a frame
/// request asks libavif for frame N, which continues from the frame decoded last when N follows
/// it and otherwise restarts at the nearest key frame. The decoder sits behind one `Mutex`:
/// libavif's decoder is not thread-safe, and frames are asked for from many tasks.
final class AVIFAnimationProvider: AnimatedImageProvider {
    let data: Data
    var format: ImageFormat { .avif }
    let canvasSize: ImageSize
    let pixelFormat: PixelFormat
    let frameCount: Int
    /// From the colour track's edit list (`AVIFRepetition`); forever when the file has none.
    let loopCount: Int
    private let durations: [Double]
    /// The colour track's clean aperture, cut from every frame.
    private let crop: AVIFCleanAperture?
    private let options: ImageDecodeOptions
    private let decoder: Mutex<AVIFDecoderHandle>

    /// Takes over `handle`, parsed from `data`. Nil when the file holds a single image rather
    /// than a sequence.
    init?(handle: consuming sending AVIFDecoderHandle, data: Data, options: ImageDecodeOptions) throws {
        guard handle.isSequence else { return nil }
        try Self.checkLimits(handle, options: options)
        self.data = data
        loopCount = AVIFRepetition(data).loopCount
        frameCount = handle.frameCount
        durations = (0..<handle.frameCount).map { AVIFFrameTiming.displayDuration(handle.duration(at: $0)) }
        pixelFormat = AVIFPixelConverter.pixelFormat(hasAlpha: handle.hasAlpha, yuvFormat: handle.image.yuvFormat)
        canvasSize = options.targetSize(for: handle.displaySize, frameCount: handle.frameCount)
        crop = handle.crop
        self.options = options
        decoder = Mutex(handle)
    }

    /// Every limit a sequence is held to, from the container alone.
    static func checkLimits(_ handle: borrowing AVIFDecoderHandle, options: ImageDecodeOptions) throws {
        try options.checkPixelLimit(handle.size)
        try options.checkFrameLimit(handle.frameCount)
        try options.checkAnimationPixels(frameCount: handle.frameCount, canvas: handle.size)
        try options.checkDecoderMemory(AVIFPixelConverter.decoderMemory(handle.image, hasAlpha: handle.hasAlpha, frameCount: handle.frameCount))
    }

    func duration(at index: Int) -> Double {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        return try decoder.withLock { handle in
            try checkpoint.check()
            try handle.decodeFrame(index)
            try checkpoint.check()
            return try AVIFPixelConverter.convert(handle.imagePointer, to: pixelFormat, crop: crop, target: canvasSize)
        }
    }
}

/// How long a frame of a sequence is shown.
enum AVIFFrameTiming {
    /// The track's duration, except that 10 ms or less (0 included) shows for 100 ms, the rule
    /// browsers apply to every animated format (and SDWebImage to GIF and WebP).
    static func displayDuration(_ seconds: Double) -> Double {
        seconds.isFinite && seconds > 0.010 ? seconds : 0.1
    }
}
