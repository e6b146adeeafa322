import Foundation
import PipelineCore

extension JPEGCoder: RowStreamingDecoder {
    /// Gray, colour and CMYK files at full size stream; CMYK rows are turned into RGB a strip at a
    /// time as the full decode turns them (through a CMYK profile, else naively).
    package func withRowSource<Result>(
        of data: Data, mapping: MappedFile?, options: ImageDecodeOptions, _ body: (any ImageRowSource) throws -> Result
    ) throws -> Result? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "JPEGCoder", format: .jpeg) }
        let options = limited(options)
        let scan = JPEGHeaderScan(data)
        try JPEGDecoder.preflight(scan, options: options)
        var (profile, profileWarning) = scan.iccSegments.profile(options: options)
        return try data.withUnsafeBytes { bytes -> Result? in
            guard !bytes.isEmpty else { throw ImagePipeError.badImageData(reason: "JPEG: no bytes") }
            let decompressor = try JPEGDecompressor()
            let checkpoint = DecodeCheckpoint(options: options)
            decompressor.limit(options, checkpoint: checkpoint, frame: scan.frame)
            decompressor.use(bytes)
            _ = try decompressor.readHeader()
            let plan = try JPEGDecodePlan(info: decompressor.info, options: options)
            guard plan.targetSize == plan.sourceSize, plan.scaleDenominator == 1 else { return nil }
            plan.apply(to: decompressor.info)
            var cmyk: JPEGCMYKRows?
            var conversionWarning: ImageDecodeWarning?
            if case .cmyk(let inverted) = plan.colorModel {
                let (converter, warning) = JPEGDecoder.cmykConverter(
                    inverted: inverted, profile: &profile, handling: options.colorHandling, colorConverters: colorConverters)
                conversionWarning = warning
                cmyk = JPEGCMYKRows(inverted: inverted, converter: converter)
                if converter != nil { profile = .sRGB }
            }
            _ = try decompressor.startDecompress()
            let source = JPEGRowSource(
                decompressor: decompressor, format: plan.pixelFormat, cmyk: cmyk,
                orientation: ImageOrientation(exifValue: scan.exifOrientation ?? 1), colorProfile: profile,
                holdsMetadata: scan.exif != nil || scan.xmp != nil || scan.hasUnreadMetadata
                    || scan.imageDataOffset.map { JPEGHeaderScan.holdsSegmentsAfterImageData(bytes, from: $0 + 2) } ?? false,
                warnings: [profileWarning, conversionWarning].compactMap { $0 },
                checkpoint: checkpoint, mapping: mapping)
            mapping?.releasePages()
            guard source.size == plan.sourceSize else { throw ImagePipeError.badImageData(reason: "JPEG: unexpected output \(source.size)") }
            return try body(source)
        }
    }
}

extension JPEGCoder: RowStreamingEncoder {
    /// Streams unless `maxPixelSize` would shrink the image or `maxFileSize` asks for a search over
    /// qualities (several encodes of the whole image).
    package func withRowSink<Result>(
        size: ImageSize, pixelFormat: PixelFormat, as format: ImageFormat, options: ImageEncodeOptions,
        fileDescriptor: Int32, _ body: (any ImageRowSink) throws -> Result
    ) throws -> Result? {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "JPEGCoder", format: .jpeg) }
        if options.outputSize(for: size) != size { return nil }
        if options.maxFileSize != nil { return nil }
        let settings = JPEGEncoder.Settings(
            progressive: options.extras[.jpegProgressive] ?? false,
            subsampling: options.extras[.jpegChromaSubsampling] ?? .yuv420)
        let sink = try JPEGRowSink(
            fileDescriptor: fileDescriptor, size: size, format: pixelFormat, quality: max(options.qualityPercent, 1),
            settings: settings, background: options.backgroundColor)
        return try body(sink)
    }
}
