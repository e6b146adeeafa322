import Foundation
import PipelineCore

/// PNG decoding on libpng and encoding on libdeflate (SDWebImage's `SDImageIOCoder` for PNG, on
/// Linux).
///
/// Register once: `ImageCodersManager.shared.add(PNGCoder())`.
///
/// - Decodes every colour type and bit depth, interlaced or not, into the narrowest 8-bit format
///   that holds the file (gray stays gray, alpha only when the file has alpha or tRNS; 16-bit is
///   rounded to 8). Gamma and colour profiles are left as stored.
/// - Refuses damaged files with `ImagePipeError.badImageData`: bad CRCs in critical chunks, bad
///   zlib data, unknown critical chunks, a file cut short before its first row or inside an
///   interlaced image. A non-interlaced file cut short later shows the rows it has (the rest
///   zero: black, or transparent with alpha) with a `.truncated` warning in `metadata.warnings`.
///   libpng warnings (damaged ancillary chunks, which are dropped) are never printed; they are
///   kept there too.
/// - Records the EXIF orientation of an eXIf chunk that precedes the image data (not applied).
/// - Checks the IHDR size against the pixel limit before libpng or any pixel memory exists.
/// - Thumbnails (`thumbnailPixelSize`, `scaleDownLimitBytes`) of non-interlaced files are
///   box-shrunk row by row while reading and then resampled, so the full image is never held;
///   interlaced files are decoded in full first (Adam7 spreads each row over seven passes).
/// - Animated PNG (APNG) decodes to a lazy animation (see `APNGIndex` for how damage is handled):
///   frames composited with their dispose and blend operations, a default image that is not part
///   of the animation skipped (as browsers do), delays after the players' clamp, the loop count
///   from acTL. Animated images encode to APNG; `firstFrameOnly` writes a still PNG.
public struct PNGCoder: ProgressiveImageCoder, AnimatedImageCoder {
    /// This coder's own pixel limit; the smaller of it and a request's `maxPixels` applies.
    public let maxPixels: Int

    public init(maxPixels: Int = ImageDecodeOptions.defaultMaxPixels) {
        self.maxPixels = maxPixels
    }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.png.matches(data) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "PNGCoder", format: .png) }
        return try APNGDecoder.decode(data, options: limited(options))
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "PNGCoder", format: .png) }
        return try APNGDecoder.animationProvider(data, options: limited(options))
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "PNGCoder", format: .png) }
        if let animation = image.animation, !options.firstFrameOnly, animation.frameCount > 1 {
            // Upright, as the still encoder writes, so the EXIF written says orientation 1.
            let upright = try image.applyingOrientation()
            return try APNGEncoder.encode(
                frameCount: animation.frameCount, loopCount: animation.loopCount, format: upright.pixelFormat,
                metadata: upright, options: options
            ) { try upright.streamedFrame(at: $0) }
        }
        return try PNGEncoder.encode(image, options: options)
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "PNGCoder", format: .png) }
        guard let first = frames.first else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        if frames.count == 1 || options.firstFrameOnly { return try PNGEncoder.encode(Image(first.buffer, format: .png), options: options) }
        let pixelFormat: PixelFormat = frames.contains { $0.buffer.format.hasAlpha } ? .rgba8 : frames.allSatisfy { $0.buffer.format.isGray } ? .gray8 : .rgb8
        return try APNGEncoder.encode(
            frameCount: frames.count, loopCount: loopCount, format: pixelFormat, metadata: Image(first.buffer, format: .png),
            options: options
        ) { frames[$0] }
    }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        PNGIncrementalDecoder(options: limited(options))
    }

    func limited(_ options: ImageDecodeOptions) -> ImageDecodeOptions {
        options.cappingPixels(at: maxPixels)
    }
}

extension PNGCoder {
    /// For an animation: the frame at its decoded size plus what compositing holds (see
    /// `APNGAnimationProvider.workingBytes`). For a still: the output (4 bytes a pixel at most)
    /// plus libpng's row buffers and the strip a thumbnail is read in, plus what is held before the final resample: the full image when interlaced, else
    /// the box-shrunk one. Nil when the header is unreadable or refused by a limit, so the decode
    /// fails with that limit's own error.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        let options = limited(options)
        if let animation = APNGDecoder.animationIndex(data, options: options) {
            guard (try? APNGAnimationProvider.checkLimits(animation, options: options)) != nil else { return nil }
            let target = options.targetSize(for: animation.canvas, frameCount: animation.frames.count)
            return ImageDecodeEstimate(outputSize: target, workingBytes: APNGAnimationProvider.workingBytes(animation, options: options))
        }
        guard let header = PNGHeader(data), (try? PNGDecoder.preflight(data, options: options)) != nil,
            var working = header.decoderMemoryEstimate
        else { return nil }
        let target = options.targetSize(for: header.size)
        if target != header.size {
            let factors = header.isInterlaced ? (x: 1, y: 1) : RowBoxShrinker.factors(from: header.size, to: target)
            let held = ((header.size.width + factors.x - 1) / factors.x).multipliedReportingOverflow(by: (header.size.height + factors.y - 1) / factors.y * 4)
            working = held.overflow ? .max : working.addingReportingOverflow(held.partialValue).overflow ? .max : working + held.partialValue
        }
        // Gray stays gray (alpha from tRNS at most); colour and palettes may gain alpha.
        let bytesPerPixel = header.colorType == 0 || header.colorType == 4 ? 2 : 4
        return ImageDecodeEstimate(outputSize: target, bytesPerPixel: bytesPerPixel, workingBytes: working)
    }
}

extension PNGCoder: EncoderMemoryEstimating {
    /// The filtered rows and the deflate output: about 3 bytes an output pixel.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int { EncoderMemory.bytes(pixels, perPixel: 3) }
}
