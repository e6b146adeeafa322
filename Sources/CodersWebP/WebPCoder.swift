import Foundation
import PipelineCore

/// WebP through libwebp: still (lossy, lossless, alpha), animated with lazily decoded frames,
/// incremental, and encoding of both. Register once: `ImageCodersManager.shared.add(WebPCoder())`.
///
/// A still file cut short shows the rows libwebp could decode (the rest zero) with a `.truncated`
/// warning in `metadata.warnings`; a cut-off animation is refused, as libwebp's demuxer refuses it.
public struct WebPCoder: AnimatedImageCoder, ProgressiveImageCoder {
    public init() {}

    /// `RIFF....WEBP`: the container's magic, as SDWebImage sniffs it.
    public func canDecode(_ data: Data) -> Bool {
        guard data.count >= 12 else { return false }
        let start = data.startIndex
        return data[start..<start + 4].elementsEqual("RIFF".utf8) && data[start + 8..<start + 12].elementsEqual("WEBP".utf8)
    }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "WebPCoder", format: .webp) }
        // The header says whether the file is animated; stills skip the demuxer (and its copy).
        let isAnimated = try data.withUnsafeBytes { try WebPPixelDecoder.features($0).has_animation != 0 }
        let (profile, profileWarning) = WebPColorProfile.read(data, options: options)
        let metadata = WebPMetadata(data, options: options)
        if isAnimated, var animated = try decodeAnimation(data, options: options, orientation: metadata.orientation) {
            animated.metadata.colorProfile = profile
            (animated.metadata.exif, animated.metadata.xmp) = (metadata.exif, metadata.xmp)
            animated.metadata.hasUnreadMetadata = metadata.hasUnreadMetadata
            for warning in [profileWarning] + metadata.warnings { animated.metadata.addWarning(warning) }
            return animated
        }
        let (pixels, warnings) = try WebPStillDecoder.decode(data, options: options)
        return Image(
            pixels, format: .webp, orientation: metadata.orientation, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: warnings + [profileWarning].compactMap { $0 } + metadata.warnings,
                colorProfile: profile, exif: metadata.exif, xmp: metadata.xmp,
                // An animation's skipped frames are part of the file the image does not carry.
                hasUnreadMetadata: metadata.hasUnreadMetadata || isAnimated))
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "WebPCoder", format: .webp) }
        return try WebPAnimationProvider(data: data, options: options)
    }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        WebPIncrementalDecoder(options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .webp }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "WebPCoder", format: .webp) }
        // Upright, as the other encoders write, so the EXIF written says orientation 1.
        let upright = try image.applyingOrientation()
        let data: Data
        if let animation = upright.animation, !options.firstFrameOnly, animation.frameCount > 1 {
            data = try WebPEncoder.encodeAnimation(frameCount: animation.frameCount, loopCount: animation.loopCount, options: options) {
                try upright.streamedFrame(at: $0)
            }
        } else {
            data = try WebPEncoder.encode(upright.firstFrame, options: options)
        }
        return WebPChunks.setting(WebPMetadata.chunks(for: upright), in: data) ?? data
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "WebPCoder", format: .webp) }
        guard let first = frames.first else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        if frames.count == 1 || options.firstFrameOnly { return try WebPEncoder.encode(first.buffer, options: options) }
        return try WebPEncoder.encodeAnimation(frameCount: frames.count, loopCount: loopCount, options: options) { frames[$0] }
    }
}

extension WebPCoder {
    /// For a still image: the output at its decoded size plus libwebp's buffers (the whole image in
    /// 32-bit pixels when lossless). For an animation: the poster frame at its decoded size plus
    /// what compositing holds at canvas size, the RGBA canvas, a blended frame decoded beside it
    /// (at most canvas size), and for a thumbnail the full-size frame it is resampled from. Nil for
    /// unreadable headers and for files a limit refuses (the decode then fails with that limit's
    /// own error).
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        data.withUnsafeBytes { bytes -> ImageDecodeEstimate? in
            guard let features = try? WebPPixelDecoder.features(bytes) else { return nil }
            let size = ImageSize(width: Int(features.width), height: Int(features.height))
            guard (try? options.checkPixelLimit(size)) != nil else { return nil }
            if features.has_animation != 0 {
                guard !size.isEmpty, let pixels = size.pixelCount else { return nil }
                let canvases = options.targetSize(for: size) == size ? 2 : 3
                return ImageDecodeEstimate(headerSize: size, options: options, workingBytes: pixels * 4 * canvases)
            }
            let working = WebPPixelDecoder.decoderMemoryEstimate(features)
            guard (try? options.checkDecoderMemory(working)) != nil else { return nil }
            return ImageDecodeEstimate(headerSize: size, options: options, bytesPerPixel: features.has_alpha != 0 ? 4 : 3, workingBytes: working)
        }
    }
}

extension WebPCoder: EncoderMemoryEstimating {
    /// libwebp's YUV and analysis planes: about 14 bytes an output pixel.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int { EncoderMemory.bytes(pixels, perPixel: 14) }
}
