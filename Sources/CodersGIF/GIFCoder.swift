import Foundation
import PipelineCore

/// GIF through giflib: still and animated (lazily composited frames, random access from the
/// nearest key block), and encoding with a median-cut palette per frame. Register once:
/// `ImageCodersManager.shared.add(GIFCoder())`.
///
/// Frames as giflib, browsers, ImageIO and Pillow agree: every image block is a frame, one with a
/// zero or missing delay too (it plays 100 ms, see `GIFIndex.spans`); where the pygif suite merges
/// such blocks, ImagePipe follows giflib. Loop count: the first NETSCAPE2.0 value, 1 when absent
/// (SDWebImage). Disposal 2 clears to transparent. A file with no image fails with
/// `badImageData`. Disputed corpus files: zero-sized blocks giflib cannot read draw nothing (an
/// empty, transparent frame) as the pygif suite expects; `max-codes` (an LZW stream giflib
/// refuses) fails with `badImageData`; `invalid-colors` and `plain-text` decode as giflib reads
/// them (out-of-table indices draw black, plain-text extensions are not rendered). A file that ends
/// inside a record after its first image keeps what was read (the cut image drawn as far as its
/// data goes) with a `.truncated` warning in `metadata.warnings`. An ICC profile (`ICCRGBG1012`)
/// and an XMP packet (`XMP DataXMP`) in application extensions are read into `metadata` and written
/// back when the image still carries them.
public struct GIFCoder: AnimatedImageCoder {
    public init() {}

    /// `GIF`: the signature giflib itself checks (the version digits are not trusted).
    public func canDecode(_ data: Data) -> Bool {
        data.count >= 6 && data.prefix(3).elementsEqual("GIF".utf8)
    }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "GIFCoder", format: .gif) }
        let provider = try GIFAnimationProvider(data: data, options: options)
        let metadata = ImageMetadata(
            decodeOptions: options, warnings: provider.warnings,
            colorProfile: provider.colorProfile, xmp: provider.xmp,
            hasUnreadMetadata: provider.hasUnreadMetadata, colorModel: ImageColorModel.palette)
        if provider.frameCount > 1 && !options.firstFrameOnly {
            return Image(animation: try AnimatedImage(provider: provider), scale: options.scaleFactor, metadata: metadata)
        }
        return Image(try provider.frame(at: 0), format: .gif, scale: options.scaleFactor, metadata: metadata)
    }

    /// The end of the first image block's data (`GIFFirstFrameExtent`).
    public func firstFrameExtent(of prefix: Data) -> ImageFirstFrameExtent {
        canDecode(prefix) ? GIFFirstFrameExtent.of(prefix) : .unknown
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "GIFCoder", format: .gif) }
        let provider = try GIFAnimationProvider(data: data, options: options)
        return provider.frameCount > 1 ? provider : nil
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .gif }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "GIFCoder", format: .gif) }
        if let animation = image.animation, !options.firstFrameOnly, animation.frameCount > 1 {
            return try GIFEncoder.encode(frameCount: animation.frameCount, loopCount: animation.loopCount, metadata: image.metadata, options: options) {
                try image.streamedFrame(at: $0)
            }
        }
        return try GIFEncoder.encode([ImageFrame(image.firstFrame, duration: 0)], loopCount: nil, metadata: image.metadata, options: options)
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "GIFCoder", format: .gif) }
        guard let first = frames.first else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        if frames.count == 1 || options.firstFrameOnly {
            return try GIFEncoder.encode([first], loopCount: nil, options: options)
        }
        return try GIFEncoder.encode(frames, loopCount: loopCount, options: options)
    }
}

extension GIFCoder {
    /// From the logical screen alone (4 bytes a pixel: transparency is known only after a scan of
    /// the whole file): the output at the options' size, plus what the compositor holds at screen
    /// size, its canvas and the backup a "restore to previous" block keeps, plus for a thumbnail
    /// the full-size frame it is resampled from. Nil when the header is unreadable or its screen
    /// is refused by the pixel limit, so the decode fails with that error.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard canDecode(data), data.count >= 10 else { return nil }
        let start = data.startIndex
        let screen = ImageSize(
            width: Int(data[start + 6]) | Int(data[start + 7]) << 8,
            height: Int(data[start + 8]) | Int(data[start + 9]) << 8)
        guard !screen.isEmpty, (try? options.checkPixelLimit(screen)) != nil, let pixels = screen.pixelCount else { return nil }
        let target = options.targetSize(for: screen)
        let screens = target == screen ? 2 : 3
        return ImageDecodeEstimate(outputSize: target, workingBytes: pixels * 4 * screens)
    }
}

extension GIFCoder: EncoderMemoryEstimating {
    /// The palette indices and the LZW output: about 3 bytes an output pixel.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int { EncoderMemory.bytes(pixels, perPixel: 3) }
}
