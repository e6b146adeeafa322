import Foundation
import PipelineCore

/// JPEG decoding and encoding on libjpeg-turbo.
///
/// Register once: `ImageCodersManager.shared.add(JPEGCoder())`.
///
/// - Decodes baseline, progressive and arithmetic-coded JPEGs, gray (kept gray), RGB, YCbCr, CMYK
///   and YCCK (Adobe's inverted CMYK is recognised from APP14), with restart markers. 12-bit and
///   lossless JPEGs fail with `ImagePipeError.unsupportedFormat`.
/// - Files that libjpeg decodes with warnings (corrupt entropy data, missing scans, truncation)
///   decode; the warnings are never printed but kept in the image's `metadata.warnings` (a
///   truncated file's missing rows are libjpeg's grey).
/// - A CMYK JPEG with a CMYK ICC profile is converted to sRGB through the profile, a strip of rows
///   at a time, when the options convert colour and a converter in `colorConverters` handles CMYK
///   (`LCMSColorConverter`); otherwise CMYK becomes RGB with naive arithmetic.
/// - The EXIF orientation (APP1) is recorded on the image, not applied.
/// - Thumbnails are decoded at 1/2, 1/4 or 1/8 scale by libjpeg where that still leaves 2x for the
///   resampler (libvips' rule), then resampled to the exact size.
/// - The frame size is checked against the pixel limit from the markers, before libjpeg starts.
public struct JPEGCoder: ProgressiveImageCoder {
    /// This coder's own pixel limit; the smaller of it and a request's `maxPixels` applies.
    public let maxPixels: Int

    /// Where CMYK JPEGs with a CMYK profile find their converter (see `decode`).
    public let colorConverters: ImageColorConvertersManager

    public init(maxPixels: Int = ImageDecodeOptions.defaultMaxPixels, colorConverters: ImageColorConvertersManager = .shared) {
        self.maxPixels = maxPixels
        self.colorConverters = colorConverters
    }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.jpeg.matches(data) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "JPEGCoder", format: .jpeg) }
        return try JPEGDecoder.decode(data, options: limited(options), colorConverters: colorConverters)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "JPEGCoder", format: .jpeg) }
        return try JPEGEncoder.encode(image, options: options)
    }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(options: limited(options), colorConverters: colorConverters)
    }

    func limited(_ options: ImageDecodeOptions) -> ImageDecodeOptions {
        options.cappingPixels(at: maxPixels)
    }
}

extension JPEGCoder {
    /// The output (gray or RGB) plus libjpeg's buffers (every coefficient of a progressive file)
    /// and, for a thumbnail, libjpeg's output at its DCT scale before the final resample (CMYK is
    /// converted a strip at a time). Nil when the header is unreadable or refused by a limit, so
    /// the decode fails with that limit's own error.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        let options = limited(options)
        let scan = JPEGHeaderScan(data)
        guard let frame = scan.frame, !frame.size.isEmpty, (try? JPEGDecoder.preflight(scan, options: options)) != nil,
            var working = frame.decoderMemoryEstimate()
        else { return nil }
        let bytesPerPixel = frame.components.count == 1 ? 1 : 3
        let target = options.targetSize(for: frame.size)
        let denominator = JPEGDecodePlan.scaleDenominator(from: frame.size, to: target)
        let scaled = ImageSize(width: (frame.size.width + denominator - 1) / denominator, height: (frame.size.height + denominator - 1) / denominator)
        if scaled != target, let pixels = scaled.pixelCount { working += pixels * bytesPerPixel }
        return ImageDecodeEstimate(outputSize: target, bytesPerPixel: bytesPerPixel, workingBytes: working)
    }
}

extension JPEGCoder: EncoderMemoryEstimating {
    /// libjpeg-turbo's component rows and Huffman buffers: about 2 bytes an output pixel.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int { EncoderMemory.bytes(pixels, perPixel: 2) }
}
