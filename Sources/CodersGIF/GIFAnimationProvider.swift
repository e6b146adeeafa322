import Foundation
import PipelineCore
import Synchronization

/// The displayed frames of a GIF, composited on request from the index. The compositor (canvas
/// and its restore state) sits behind a `Mutex`: frames are asked for from many tasks, in any
/// order, and each request moves that shared canvas.
final class GIFAnimationProvider: AnimatedImageProvider {
    let data: Data
    var format: ImageFormat { .gif }
    let canvasSize: ImageSize
    let pixelFormat: PixelFormat
    let frameCount: Int
    let loopCount: Int
    /// What the index scan recovered from (a truncated file), for the decoded image.
    let warnings: [ImageDecodeWarning]
    /// The file's ICC profile and XMP packet (application extensions), for the decoded image.
    let colorProfile: ImageColorProfile?
    let xmp: Data?
    /// See `GIFIndex.hasUnreadMetadata`.
    let hasUnreadMetadata: Bool
    private let durations: [Double]
    private let screen: ImageSize
    private let compositor: Mutex<GIFCompositor>
    private let options: ImageDecodeOptions

    init(data: Data, options: ImageDecodeOptions) throws {
        let index = try GIFIndex(data, options: options)
        try options.checkAnimationPixels(frameCount: index.frames.count, canvas: index.screen)
        self.data = data
        screen = index.screen
        frameCount = index.frames.count
        loopCount = index.loopCount
        warnings = index.warnings
        colorProfile = index.colorProfile
        xmp = index.xmp
        hasUnreadMetadata = index.hasUnreadMetadata
        durations = index.frames.map(\.duration)
        // RGB when nothing can ever be transparent: a third less memory per frame.
        pixelFormat = index.hasTransparency ? .rgba8 : .rgb8
        // GIF has no reduced-size decoding; thumbnails are composited full size and resampled.
        canvasSize = options.targetSize(for: index.screen, frameCount: index.frames.count)
        compositor = Mutex(try GIFCompositor(data: data, index: index))
        self.options = options
    }

    func duration(at index: Int) -> Double {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        if canvasSize != screen, frameCount == 1,
            let thumbnail = try compositor.withLock({ try $0.streamedOnlyBlock(to: canvasSize, checkpoint: checkpoint) })
        {
            return thumbnail
        }
        let pixels = try compositor.withLock { try $0.render(frame: index, checkpoint: checkpoint) }
        var buffer = try PixelBuffer(width: screen.width, height: screen.height, format: pixelFormat, bytes: pixels)
        if canvasSize != screen { buffer = buffer.resampled(to: canvasSize) }
        return buffer
    }
}
