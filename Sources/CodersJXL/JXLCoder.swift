import Foundation
import PipelineCore

/// JPEG XL through libjxl: still and animated (frames decoded lazily), gray and colour, alpha,
/// ICC profiles, EXIF and XMP, orientation, incremental decoding; encoding of both, lossy (cjxl's
/// quality scale) or lossless. Register once: `ImageCodersManager.shared.add(JXLCoder())`.
///
/// A still file cut short shows what libjxl could decode of it, the rest blank, with a
/// `.truncated` warning; a cut-off animation is refused. A cancelled or overlong decode stops
/// within one of libjxl's jobs (a group of 256 x 256 pixels); a cancelled encode between frames,
/// and a still over 4 megapixels, encoded by a child process, at once (the child is killed).
public struct JXLCoder: AnimatedImageCoder, ProgressiveImageCoder {
    /// libjxl's encoder effort unless `ImageCodingExtras.jxlEffort` says otherwise: 4, imgproxy's
    /// default (cjxl's own is 7: files a few percent smaller, encodes several times slower).
    public static let defaultEffort = 4

    public init() {}

    /// A bare codestream (`FF 0A`) or the container's `JXL ` signature box.
    public func canDecode(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0x0A]) || data.starts(with: JXLMetadata.containerSignature)
    }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "JXLCoder", format: .jxl) }
        let metadata = JXLMetadata(data, options: options)
        guard let still = try JXLStillDecoder.decode(data, options: options) else {
            guard let provider = try JXLAnimationProvider(data: data, options: options) else {
                throw ImagePipeError.badImageData(reason: "JPEG XL says it is animated but has no frames")
            }
            // The header pass read the colour encoding too, but a provider has no place for it:
            // read it again from the still path's header (cheap: no pixels).
            let header = try JXLStillDecoder.header(data, options: options)
            let animation = try AnimatedImage(provider: provider)
            return Image(
                animation: animation, orientation: header.info.orientation, scale: options.scaleFactor,
                metadata: ImageMetadata(
                    decodeOptions: options, warnings: [header.warning].compactMap { $0 } + metadata.warnings,
                    colorProfile: header.profile, exif: metadata.exif, xmp: metadata.xmp, hasUnreadMetadata: metadata.hasUnreadMetadata))
        }
        return Image(
            still.pixels, format: .jxl, orientation: still.info.orientation, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: still.warnings + metadata.warnings, colorProfile: still.colorProfile,
                exif: metadata.exif, xmp: metadata.xmp,
                // An animation's skipped frames are part of the file the image does not carry.
                hasUnreadMetadata: metadata.hasUnreadMetadata || still.info.isAnimated))
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "JXLCoder", format: .jxl) }
        return try JXLAnimationProvider(data: data, options: options)
    }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        JXLIncrementalDecoder(options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jxl }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "JXLCoder", format: .jxl) }
        // Upright, as the other encoders write, so the EXIF written says orientation 1.
        let upright = try image.applyingOrientation()
        if let animation = upright.animation, !options.firstFrameOnly, animation.frameCount > 1 {
            return try JXLEncoder.encode(frameCount: animation.frameCount, loopCount: animation.loopCount, metadata: upright.metadata, options: options) {
                try upright.streamedFrame(at: $0)
            }
        }
        let still = upright.firstFrame
        return try JXLEncoder.encode(frameCount: 1, loopCount: 0, metadata: upright.metadata, options: options) { _ in ImageFrame(still, duration: 0) }
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "JXLCoder", format: .jxl) }
        let count = options.firstFrameOnly ? min(frames.count, 1) : frames.count
        return try JXLEncoder.encode(frameCount: count, loopCount: loopCount, metadata: ImageMetadata(), options: options) { frames[$0] }
    }

    /// The output at its decoded size plus libjxl's working set for one frame (`JXLImageInfo`),
    /// plus for a thumbnail the full-size frame it is resampled from. Nil for unreadable headers
    /// and files a limit refuses (the decode then fails with that limit's own error).
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard canDecode(data), let header = try? JXLStillDecoder.header(data, options: options),
            (try? header.info.checkLimits(options)) != nil
        else { return nil }
        let info = header.info
        let target = options.targetSize(for: info.size)
        var working = info.decoderMemory
        if target != info.size, let full = try? PixelBuffer.byteCount(width: info.size.width, height: info.size.height, format: info.pixelFormat) {
            working = working.addingReportingOverflow(full).overflow ? .max : working + full
        }
        return ImageDecodeEstimate(outputSize: target, bytesPerPixel: info.pixelFormat.bytesPerPixel, workingBytes: working)
    }
}
