import CJPEG
import Foundation
import PipelineCore

/// One-shot JPEG decoding, with shrink-on-load for thumbnails.
enum JPEGDecoder {
    /// Refuses what libjpeg's 8-bit API cannot decode, sizes over the pixel limit and working sets
    /// over the decoder memory limit, from the marker scan alone.
    static func preflight(_ scan: JPEGHeaderScan, options: ImageDecodeOptions) throws {
        guard let frame = scan.frame else { return }
        if frame.isLossless {
            throw ImagePipeError.unsupportedFormat(.jpeg, reason: "lossless JPEG (SOF\(frame.marker & 0x0F)) is not supported by the 8-bit libjpeg API")
        }
        if frame.precision != 8 {
            throw ImagePipeError.unsupportedFormat(.jpeg, reason: "\(frame.precision)-bit JPEG is not supported by the 8-bit libjpeg API")
        }
        if !frame.size.isEmpty { try options.checkPixelLimit(frame.size) }
        if let estimate = frame.decoderMemoryEstimate() { try options.checkDecoderMemory(estimate) }
    }

    /// The image, with libjpeg's warnings in `metadata.warnings`.
    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        let scan = JPEGHeaderScan(data)
        try preflight(scan, options: options)
        let (pixels, warnings) = try data.withUnsafeBytes { bytes -> (PixelBuffer, [ImageDecodeWarning]) in
            guard !bytes.isEmpty else { throw ImagePipeError.badImageData(reason: "JPEG: no bytes") }
            let decompressor = try JPEGDecompressor()
            decompressor.limit(options, checkpoint: DecodeCheckpoint(options: options), frame: scan.frame)
            decompressor.use(bytes)
            _ = try decompressor.readHeader()
            let plan = try JPEGDecodePlan(info: decompressor.info, options: options)
            plan.apply(to: decompressor.info)
            _ = try decompressor.startDecompress()
            let pixels = try readAllRows(decompressor, plan: plan)
            // The image is complete; what follows it (junk before EOI, a missing EOI) only adds
            // warnings, and a failure there must not throw the decoded pixels away.
            _ = try? decompressor.finishDecompress()
            return (pixels, decompressor.warnings)
        }
        let orientation = ImageOrientation(exifValue: scan.exifOrientation ?? 1)
        let (profile, profileWarning) = scan.iccSegments.profile(options: options)
        return Image(pixels, format: .jpeg, orientation: orientation, scale: options.scaleFactor,
                     metadata: ImageMetadata(decodeOptions: options, warnings: warnings + (profileWarning.map { [$0] } ?? []),
                                             colorProfile: profile))
    }

    private static func readAllRows(_ decompressor: JPEGDecompressor, plan: JPEGDecodePlan) throws -> PixelBuffer {
        let info = decompressor.info
        let width = Int(info.pointee.output_width), height = Int(info.pointee.output_height)
        let components = Int(info.pointee.output_components)
        guard components == plan.outputComponents, width > 0, height > 0 else {
            throw ImagePipeError.badImageData(reason: "JPEG: unexpected output \(width)x\(height)x\(components)")
        }
        let rowBytes = width * components
        let (byteCount, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        let output = try [UInt8](unsafeUninitializedCapacity: byteCount) { storage, initialized in
            guard let base = storage.baseAddress else { return }
            var rows = (0..<height).map { Optional(base + $0 * rowBytes) }
            try rows.withUnsafeMutableBufferPointer { rows in
                var done = 0
                while done < height {
                    let read = try decompressor.readScanlines(into: rows.baseAddress! + done, count: height - done)
                    // A complete source never suspends; 0 rows would loop forever.
                    guard read > 0 else { throw ImagePipeError.badImageData(reason: "JPEG: decoder made no progress") }
                    done += read
                }
            }
            initialized = byteCount
        }
        return try plan.pixels(fromOutput: output, width: width, height: height)
    }
}
