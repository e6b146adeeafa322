import Foundation
import PipelineCore
import Synchronization

/// A progressive PNG load: bytes are pushed into libpng's progressive reader as they arrive, and
/// the rows decoded so far are shown as a partial image (`metadata.isIncremental`). Once the bytes
/// are complete the image is decoded one-shot from them, so the final image is exactly what
/// `PNGCoder.decode` gives for the same bytes and options.
final class PNGIncrementalDecoder: IncrementalImageDecoder {
    private let options: ImageDecodeOptions
    private let state = Mutex(IncrementalDecodeState<PNGStream>())

    init(options: ImageDecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isComplete: Bool) {
        let options = self.options
        state.withLock { state in
            state.update(data, isComplete: isComplete, decodeComplete: { try APNGDecoder.decode($0, options: options) }) { stream, data, fed in
                if stream == nil {
                    // Wait for the IHDR so the pixel limit is checked before libpng starts.
                    guard data.count >= PNGHeader.minimumByteCount else { return false }
                    try PNGDecoder.preflight(data, options: options)
                    stream = try PNGStream(maxPixels: options.maxPixels, maxChunkBytes: PNGDecoder.maxChunkBytes(options))
                }
                try data.withUnsafeBytes { try stream!.feed(UnsafeRawBufferPointer(rebasing: $0[fed...])) }
                return true
            }
        }
    }

    func currentImage() throws -> Image? {
        let options = self.options
        return try state.withLock { state -> Image? in
            try state.currentImage { stream in
                guard var pixels = try stream.partialPixels() else { return nil }
                pixels = Self.scaled(pixels, options: options, fullHeight: stream.fullHeight ?? pixels.height)
                return Image(
                    pixels, format: .png, scale: options.scaleFactor,
                    metadata: ImageMetadata(isIncremental: true, decodeOptions: options))
            }
        }
    }

    /// A partial image at the scale of the final one: its rows are the top of the final image, so
    /// it is never larger than what the complete decode will show.
    private static func scaled(_ pixels: PixelBuffer, options: ImageDecodeOptions, fullHeight: Int) -> PixelBuffer {
        let full = ImageSize(width: pixels.width, height: fullHeight)
        let target = options.targetSize(for: full)
        guard target != full, fullHeight > 0 else { return pixels }
        let height = max((target.height * pixels.height + fullHeight - 1) / fullHeight, 1)
        return pixels.resampled(to: ImageSize(width: target.width, height: min(height, target.height)))
    }
}
