import Foundation
import PipelineCore

/// AVIF through libavif: still images and image sequences (frames decoded lazily), alpha, 10- and
/// 12-bit files scaled to 8 bits, orientation from `irot`/`imir`, cropping to `clap`, ICC, EXIF
/// and XMP; encoding of both. Register once: `ImageCodersManager.shared.add(AVIFCoder())`.
///
/// Files are read as libavif 1.x reads them, also on libavif 0.11 (`AVIFFileRewrite`). A
/// truncated or corrupt file is refused with `badImageData`: libavif decodes whole AV1 frames.
public struct AVIFCoder: AnimatedImageCoder {
    /// libavif's encoder speed unless `ImageCodingExtras.avifSpeed` says otherwise: 5, the speed
    /// vips asks of libaom by default (effort 4). At equal SSIMULACRA2 our photos are then as small
    /// as vips' for about the same CPU (one thread against its four). Speed 6 takes about half the
    /// CPU for about a tenth more bytes, 8 (imgproxy's) a fifth of it for 1.3–2.4× the bytes
    /// (Benchmarks/rate-quality-RESULTS.md).
    public static let defaultSpeed = 5

    /// The cell side of grids unless `ImageCodingExtras.avifGridCellSize` says otherwise: 512, as
    /// iPhones write HEIC. At speed 5 a cell takes about 0.2 s, the longest a cancelled encode
    /// runs on.
    public static let defaultGridCellSize = 512

    /// Stills above this many pixels are encoded as a grid unless
    /// `ImageCodingExtras.avifGridMinimumPixels` says otherwise: 4 megapixels (2048×2048). Below
    /// it a single encode ends within a few seconds and its file is a little smaller.
    public static let defaultGridMinimumPixels = 2048 * 2048

    public init() {}

    /// AVIF as this coder recognises it, for the format table: the built-in entry's signature
    /// (major brand `avif` or `avis`) widened to generic HEIF files (`mif1`, `msf1`, `miaf`) that
    /// list `avif` or `avis` as compatible. Register it with the coder:
    /// `ImageFormatRegistry.shared.register(AVIFCoder.format)`.
    public static let format = ImageFormat(
        identifier: ImageFormat.avif.identifier, names: ImageFormat.avif.names, mimeTypes: ImageFormat.avif.mimeTypes,
        fileExtensions: ImageFormat.avif.fileExtensions, supportsAnimation: true,
        signature: ImageFormat.Signature { FileTypeBox($0.head).map(isAVIF) ?? false })

    /// Major brand `avif` or `avis`, or a generic brand with one of them compatible.
    static func isAVIF(_ box: FileTypeBox) -> Bool {
        if brands.contains(box.majorBrand) { return true }
        return genericBrands.contains(box.majorBrand) && box.compatibleBrands.contains { brands.contains($0) }
    }

    static let brands: Set<String> = ["avif", "avis"]
    static let genericBrands: Set<String> = ["mif1", "msf1", "miaf"]

    /// An `ftyp` box as `format`'s signature accepts.
    public func canDecode(_ data: Data) -> Bool {
        FileTypeBox(data).map(Self.isAVIF) ?? false
    }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "AVIFCoder", format: .avif) }
        let checkpoint = DecodeCheckpoint(options: options)
        let handle = try AVIFDecoderHandle(data, options: options)
        let metadata = AVIFMetadata(handle.image, cleanAperture: handle.cleanAperture, options: options)
        let imageMetadata = ImageMetadata(
            decodeOptions: options, warnings: metadata.warnings, colorProfile: metadata.colorProfile,
            exif: metadata.exif, xmp: metadata.xmp)
        if handle.isSequence && !options.firstFrameOnly {
            guard let provider = try AVIFAnimationProvider(handle: handle, data: data, options: options) else {
                throw ImagePipeError.badImageData(reason: "AVIF sequence has no frames")
            }
            let animation = try AnimatedImage(provider: provider)
            return Image(animation: animation, orientation: metadata.orientation, scale: options.scaleFactor, metadata: imageMetadata)
        }
        let target = options.targetSize(for: handle.displaySize)
        try options.checkPixelLimit(handle.size)
        try options.checkDecoderMemory(Self.stillWorkingBytes(handle, target: target))
        try checkpoint.check()
        try handle.decodeFrame(0)
        try checkpoint.check()
        let format = AVIFPixelConverter.pixelFormat(hasAlpha: handle.hasAlpha, yuvFormat: handle.image.yuvFormat)
        let pixels = try AVIFPixelConverter.convert(handle.imagePointer, to: format, crop: handle.crop, target: target)
        return Image(pixels, format: .avif, orientation: metadata.orientation, scale: options.scaleFactor, metadata: imageMetadata)
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "AVIFCoder", format: .avif) }
        return try AVIFAnimationProvider(handle: AVIFDecoderHandle(data, options: options), data: data, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .avif }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "AVIFCoder", format: .avif) }
        // Upright, as the other encoders write, so no irot/imir is written and the EXIF says 1.
        let upright = try image.applyingOrientation()
        if let animation = upright.animation, !options.firstFrameOnly, animation.frameCount > 1 {
            return try AVIFEncoder.encodeAnimation(frameCount: animation.frameCount, options: options) { try upright.streamedFrame(at: $0) }
        }
        return try AVIFEncoder.encode(upright.firstFrame, metadata: upright.metadata, options: options)
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "AVIFCoder", format: .avif) }
        guard let first = frames.first else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        if frames.count == 1 || options.firstFrameOnly { return try AVIFEncoder.encode(first.buffer, metadata: ImageMetadata(), options: options) }
        return try AVIFEncoder.encodeAnimation(frameCount: frames.count, options: options) { frames[$0] }
    }

    /// What decoding `data` holds at its peak, from the container alone (parsed, no AV1 data
    /// decoded): the output at its decoded size, plus libavif's planes and the AV1 decoder's
    /// buffers, plus the full-size RGB frame a thumbnail is resampled from. Nil for unreadable
    /// containers and files a limit refuses (the decode then fails with that limit's own error).
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard canDecode(data), let handle = try? AVIFDecoderHandle(data, options: options),
            (try? options.checkPixelLimit(handle.size)) != nil
        else { return nil }
        let frames = options.firstFrameOnly ? 1 : handle.frameCount
        let format = AVIFPixelConverter.pixelFormat(hasAlpha: handle.hasAlpha, yuvFormat: handle.image.yuvFormat)
        let target = options.targetSize(for: handle.displaySize, frameCount: frames)
        let working =
            frames > 1
            ? AVIFPixelConverter.decoderMemory(handle.image, hasAlpha: handle.hasAlpha, frameCount: frames) + Self.rgbBytes(handle.size, thumbnail: target != handle.size)
            : Self.stillWorkingBytes(handle, target: target)
        guard (try? options.checkDecoderMemory(working)) != nil else { return nil }
        return ImageDecodeEstimate(outputSize: target, bytesPerPixel: format.bytesPerPixel, workingBytes: working)
    }

    /// libavif's and the AV1 decoder's buffers for one image, plus the full-size RGB(A) frame
    /// that a thumbnail or a clean aperture is cut from.
    static func stillWorkingBytes(_ handle: borrowing AVIFDecoderHandle, target: ImageSize) -> Int {
        let decoder = AVIFPixelConverter.decoderMemory(handle.image, hasAlpha: handle.hasAlpha, frameCount: 1)
        let (total, overflow) = decoder.addingReportingOverflow(rgbBytes(handle.size, thumbnail: target != handle.size))
        return overflow ? .max : total
    }

    private static func rgbBytes(_ size: ImageSize, thumbnail: Bool) -> Int {
        guard thumbnail else { return 0 }
        return (try? PixelBuffer.byteCount(width: size.width, height: size.height, format: .rgba8)) ?? .max
    }
}

extension AVIFCoder: EncoderMemoryEstimating {
    /// libaom's frame buffers: about 17 bytes an output pixel for an image encoded whole, 4 for one
    /// encoded as a grid (over `defaultGridMinimumPixels`), which holds one cell's buffers at once.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int {
        EncoderMemory.bytes(pixels, perPixel: pixels > Self.defaultGridMinimumPixels ? 4 : 17)
    }
}
