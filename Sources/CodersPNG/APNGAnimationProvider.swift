import Foundation
import PipelineCore
import Synchronization

/// The frames of an APNG, composited on request. Frames that cover the canvas and replace it are
/// decoded straight from their data, in parallel; the others go through the compositor (canvas
/// and restore state) behind a `Mutex`, since every request moves that shared canvas.
final class APNGAnimationProvider: AnimatedImageProvider {
    let data: Data
    var format: ImageFormat { .png }
    let canvasSize: ImageSize
    /// RGB or gray when every frame covers the canvas and nothing can be transparent (each frame is
    /// then its own pixels); else RGBA.
    let pixelFormat: PixelFormat
    let frameCount: Int
    let loopCount: Int
    let warnings: [ImageDecodeWarning]
    private let durations: [Double]
    private let decoder: APNGFrameDecoder
    private let compositor: Mutex<APNGCompositor>
    private let options: ImageDecodeOptions

    /// Checks the limits from the index alone, before any pixel memory exists.
    init(data: Data, index: APNGIndex, options: ImageDecodeOptions) throws {
        try Self.checkLimits(index, options: options)
        self.data = data
        frameCount = index.frames.count
        loopCount = index.loopCount
        warnings = index.warnings
        durations = index.frames.map(\.control.duration)
        let opaqueFrames = !index.hasTransparency && index.frames.allSatisfy { $0.control.covers(index.canvas) }
        pixelFormat = opaqueFrames ? (index.header.colorType == 0 ? .gray8 : .rgb8) : .rgba8
        // PNG has no reduced-size decoding of frames; thumbnails are composited full size and resampled.
        canvasSize = options.targetSize(for: index.canvas, frameCount: index.frames.count)
        decoder = APNGFrameDecoder(data: data, index: index, options: options)
        compositor = Mutex(APNGCompositor(decoder: decoder))
        self.options = options
    }

    static func checkLimits(_ index: APNGIndex, options: ImageDecodeOptions) throws {
        try options.checkPixelLimit(index.canvas)
        try options.checkAnimationPixels(frameCount: index.frames.count, canvas: index.canvas)
        try options.checkDecoderMemory(workingBytes(index, options: options))
    }

    /// What compositing holds besides the frame handed out: the RGBA canvas, the decoded frame (at
    /// most canvas size) and its inflated rows, the rectangle kept for a "previous" disposal, the full-size frame a
    /// thumbnail is resampled from, and libpng's rows.
    static func workingBytes(_ index: APNGIndex, options: ImageDecodeOptions) -> Int {
        guard let pixels = index.canvas.pixelCount else { return .max }
        let keepsPrevious = index.frames.contains { $0.control.dispose == .previous }
        // Canvas, decoded frame, and the inflated rows the quick way unfilters from.
        let canvases = 3 + (keepsPrevious ? 1 : 0) + (options.targetSize(for: index.canvas, frameCount: index.frames.count) == index.canvas ? 0 : 1)
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: 4 * canvases)
        guard !overflow, let rows = index.header.decoderMemoryEstimate else { return .max }
        return bytes.addingReportingOverflow(rows).overflow ? .max : bytes + rows
    }

    func duration(at index: Int) -> Double {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        var buffer: PixelBuffer
        if APNGFrames.isIndependent(index, in: decoder.index) {
            buffer = try decoder.pixels(of: index, checkpoint: checkpoint).converted(to: pixelFormat)
        } else {
            let canvas = try compositor.withLock { try $0.render(frame: index, checkpoint: checkpoint) }
            let size = decoder.index.canvas
            buffer = try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: canvas)
        }
        if buffer.size != canvasSize { buffer = buffer.resampled(to: canvasSize) }
        return buffer
    }
}
