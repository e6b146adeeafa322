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

    /// The image, with libjpeg's warnings in `metadata.warnings`. A CMYK image with a CMYK profile
    /// is converted to sRGB through it by `colorConverters` when `options.colorHandling` converts
    /// and a converter there handles CMYK; otherwise with naive arithmetic, keeping the profile
    /// on the image (encoders never write a CMYK profile beside RGB pixels).
    static func decode(_ data: Data, options: ImageDecodeOptions, colorConverters: ImageColorConvertersManager) throws -> Image {
        let scan = JPEGHeaderScan(data)
        try preflight(scan, options: options)
        var (profile, profileWarning) = scan.iccSegments.profile(options: options)
        var conversionWarning: ImageDecodeWarning?
        var colorModel: String?
        let (pixels, warnings, hasUnreadTail) = try data.withUnsafeBytes { bytes -> (PixelBuffer, [ImageDecodeWarning], Bool) in
            guard !bytes.isEmpty else { throw ImagePipeError.badImageData(reason: "JPEG: no bytes") }
            let decompressor = try JPEGDecompressor()
            decompressor.limit(options, checkpoint: DecodeCheckpoint(options: options), frame: scan.frame)
            decompressor.use(bytes)
            _ = try decompressor.readHeader()
            let plan = try JPEGDecodePlan(info: decompressor.info, options: options)
            plan.apply(to: decompressor.info)
            colorModel = plan.sourceColorModel
            var cmykRows: (any CMYKRowConverter)?
            if case .cmyk(let inverted) = plan.colorModel {
                (cmykRows, conversionWarning) = cmykConverter(
                    inverted: inverted, profile: &profile, handling: options.colorHandling, colorConverters: colorConverters)
            }
            _ = try decompressor.startDecompress()
            let pixels = try readAllRows(decompressor, plan: plan, cmykRows: cmykRows)
            if cmykRows != nil { profile = .sRGB }
            // The image is complete; what follows it (junk before EOI, a missing EOI) only adds
            // warnings, and a failure there must not throw the decoded pixels away. Bytes after
            // EOI (a phone's trailer, an appended video or file) and segments after the first scan
            // are metadata not read.
            let finished = (try? decompressor.finishDecompress()) == true
            let lateSegments = scan.imageDataOffset.map { JPEGHeaderScan.holdsSegmentsAfterImageData(bytes, from: $0 + 2) } ?? false
            return (pixels, decompressor.warnings, !finished || decompressor.bytesLeft > 0 || lateSegments)
        }
        let orientation = ImageOrientation(exifValue: scan.exifOrientation ?? 1)
        let (exif, exifWarning) = options.acceptingMetadata(scan.exif.map { Data($0) }, kind: "EXIF", format: "JPEG")
        let (xmp, xmpWarning) = options.acceptingMetadata(scan.xmp.map { Data($0) }, kind: "XMP", format: "JPEG")
        let extra = [profileWarning, conversionWarning, exifWarning, xmpWarning].compactMap { $0 }
        return Image(
            pixels, format: .jpeg, orientation: orientation, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: warnings + extra,
                colorProfile: profile, exif: exif, xmp: xmp,
                hasUnreadMetadata: scan.hasUnreadMetadata || hasUnreadTail || exifWarning != nil || xmpWarning != nil,
                colorModel: colorModel))
    }

    /// What turns a CMYK file's rows into RGB under `handling`: its profile's converter, or nil for
    /// naive arithmetic. A profile lcms2 refuses is dropped (`profile` set to nil, so the decode
    /// step does not refuse it again) with the warning returned.
    static func cmykConverter(
        inverted: Bool, profile: inout ImageColorProfile?, handling: ImageColorHandling, colorConverters: ImageColorConvertersManager
    ) -> ((any CMYKRowConverter)?, ImageDecodeWarning?) {
        do {
            return (try colorConverters.cmykConverter(for: handling, profile: profile, inverted: inverted), nil)
        } catch {
            profile = nil
            return (nil, ImageDecodeWarning(.colorProfileIgnored, message: "JPEG: CMYK colour profile not applied, CMYK converted without it: \(error)"))
        }
    }

    /// The rows as the plan's pixels; CMYK through `cmykRows` when given, else naively.
    private static func readAllRows(_ decompressor: JPEGDecompressor, plan: JPEGDecodePlan, cmykRows: (any CMYKRowConverter)?) throws -> PixelBuffer {
        let info = decompressor.info
        let width = Int(info.pointee.output_width), height = Int(info.pointee.output_height)
        let components = Int(info.pointee.output_components)
        guard components == plan.outputComponents, width > 0, height > 0 else {
            throw ImagePipeError.badImageData(reason: "JPEG: unexpected output \(width)x\(height)x\(components)")
        }
        let byteCount = try PixelBuffer.byteCount(width: width, height: height, format: plan.pixelFormat)
        let bytes: [UInt8]
        if case .cmyk(let inverted) = plan.colorModel {
            // CMYK is read a strip at a time and converted into the RGB rows, so the image is never
            // held twice (four bytes a pixel beside three).
            let rowBytes = width * 4
            let stripRows = min(height, cmykStripRows)
            var strip = [UInt8](repeating: 0, count: rowBytes * stripRows)
            bytes = try [UInt8](unsafeUninitializedCapacity: byteCount) { storage, initialized in
                guard let base = storage.baseAddress else { return }
                try strip.withUnsafeMutableBufferPointer { strip in
                    var rows = (0..<stripRows).map { Optional(strip.baseAddress! + $0 * rowBytes) }
                    var done = 0
                    while done < height {
                        let count = min(stripRows, height - done)
                        try rows.withUnsafeMutableBufferPointer { try readRows(decompressor, into: $0.baseAddress!, count: count) }
                        JPEGCMYKRows(inverted: inverted, converter: cmykRows).convert(strip.baseAddress!, into: base + done * width * 3, pixels: count * width)
                        done += count
                    }
                }
                initialized = byteCount
            }
        } else if let stream = RowStreamResampler(
            source: ImageSize(width: width, height: height), format: plan.pixelFormat,
            target: plan.targetSize, filter: JPEGDecodePlan.thumbnailFilter,
            rowsPerFill: Int(info.pointee.rec_outbuf_height))
        {
            // A thumbnail: the rows go straight into the resample, so the decode is never held whole.
            while stream.rowsLeft > 0 {
                try stream.fill { rows, count in
                    let read = try decompressor.readScanlines(into: rows, count: count)
                    // A complete source never suspends; 0 rows would loop forever.
                    guard read > 0 else { throw ImagePipeError.badImageData(reason: "JPEG: decoder made no progress") }
                    return read
                }
            }
            return stream.finish()
        } else {
            let rowBytes = width * components
            bytes = try [UInt8](unsafeUninitializedCapacity: byteCount) { storage, initialized in
                guard let base = storage.baseAddress else { return }
                var rows = (0..<height).map { Optional(base + $0 * rowBytes) }
                try rows.withUnsafeMutableBufferPointer { try readRows(decompressor, into: $0.baseAddress!, count: height) }
                initialized = byteCount
            }
        }
        return plan.resampled(try PixelBuffer(width: width, height: height, format: plan.pixelFormat, bytes: bytes))
    }

    /// CMYK rows converted to RGB at a time.
    static let cmykStripRows = 16

    /// Reads exactly `count` rows into `rows`.
    static func readRows(_ decompressor: JPEGDecompressor, into rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int) throws {
        var done = 0
        while done < count {
            let read = try decompressor.readScanlines(into: rows + done, count: count - done)
            // A complete source never suspends; 0 rows would loop forever.
            guard read > 0 else { throw ImagePipeError.badImageData(reason: "JPEG: decoder made no progress") }
            done += read
        }
    }
}
