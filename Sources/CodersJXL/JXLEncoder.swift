import CJXL
import Foundation
import PipelineCore

/// Still and animated JPEG XL encoding through libjxl's encoder, one frame at a time.
///
/// Each frame is encoded as soon as it is added (its output drained before the next frame is
/// asked for), so an animation streams through holding one frame and the compressed bytes. A
/// cancelled encode stops between frames; libjxl 0.7's encoder cannot be stopped inside one (it
/// crashes when its runner fails a job, unlike its decoder), so a large still is encoded by a
/// child process that is killed when the encode is cancelled (`JXLChildProcessEncode`).
enum JXLEncoder {
    static func encode(
        frameCount: Int, loopCount: Int, metadata: ImageMetadata, options: ImageEncodeOptions, frame: (Int) throws -> ImageFrame
    ) throws -> Data {
        guard frameCount > 0 else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        try JXLLibrary.open()
        guard let encoder = ip_JxlEncoderCreate(nil) else { throw ImagePipeError.encodingFailed(reason: "libjxl could not start an encoder") }
        defer { ip_JxlEncoderDestroy(encoder) }
        // A runner that never stops (libjxl 0.7's encoder crashes when its runner fails a job), in
        // C: a child process encoding a large still runs it, and no Swift may run there.
        guard ip_JxlEncoderSetParallelRunner(encoder, ip_jxl_sequential_runner, nil) == JXL_ENC_SUCCESS else {
            throw ImagePipeError.encodingFailed(reason: "libjxl refused the runner")
        }
        let first = try frame(0)
        let size = options.outputSize(for: first.buffer.size)
        // Every pixel format the pipeline has is one libjxl takes as it is.
        let format = first.buffer.format
        let animated = frameCount > 1
        try configure(encoder, size: size, format: format, animated: animated, loopCount: loopCount, lossless: isLossless(options))
        try setColour(encoder, metadata: metadata, format: format)
        try addMetadataBoxes(encoder, metadata: metadata)
        let settings = try frameSettings(encoder, options: options)
        var output = JXLOutput()
        for index in 0..<frameCount {
            try DecodeCancellation.checkCurrent()
            let current = index == 0 ? first : try frame(index)
            var buffer = current.buffer
            if buffer.size != size { buffer = buffer.resampled(to: size) }
            if buffer.format != format { buffer = buffer.converted(to: format, background: options.backgroundColor) }
            if animated {
                var header = JxlFrameHeader()
                ip_JxlEncoderInitFrameHeader(&header)
                header.duration = UInt32(clamping: Int((max(current.duration, 0) * 1000).rounded()))
                guard ip_JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS else {
                    throw ImagePipeError.encodingFailed(reason: "libjxl refused frame \(index)'s header")
                }
            }
            var jxlFormat = JXLDecoderSession.pixelFormat(format)
            let added = buffer.bytes.withUnsafeBytes { ip_JxlEncoderAddImageFrame(settings, &jxlFormat, $0.baseAddress, $0.count) }
            guard added == JXL_ENC_SUCCESS else { throw try error(encoder, doing: "adding frame \(index)") }
            if index == frameCount - 1 { ip_JxlEncoderCloseInput(encoder) }
            if frameCount == 1, size.width * size.height > JXLChildProcessEncode.minimumPixels {
                return try JXLChildProcessEncode.output(of: encoder)
            }
            try output.drain(encoder) { try error(encoder, doing: "encoding frame \(index)") }
        }
        return output.data
    }

    private static func configure(_ encoder: OpaquePointer, size: ImageSize, format: PixelFormat, animated: Bool, loopCount: Int, lossless: Bool) throws {
        var info = JxlBasicInfo()
        ip_JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(clamping: size.width)
        info.ysize = UInt32(clamping: size.height)
        info.bits_per_sample = 8
        info.exponent_bits_per_sample = 0
        info.num_color_channels = format == .gray8 || format == .grayAlpha8 ? 1 : 3
        if format.hasAlpha {
            info.alpha_bits = 8
            info.num_extra_channels = 1
        }
        // Lossless keeps the samples as given; lossy converts to XYB, libjxl's perceptual space.
        info.uses_original_profile = lossless ? 1 : 0
        if animated {
            info.have_animation = 1
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: max(loopCount, 0))
        }
        guard ip_JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS else {
            throw ImagePipeError.encodingFailed(reason: "libjxl refused an image of \(size)")
        }
    }

    /// The image's ICC profile when its pixels are still in it, else sRGB.
    private static func setColour(_ encoder: OpaquePointer, metadata: ImageMetadata, format: PixelFormat) throws {
        if let icc = metadata.colorProfile?.iccData(describing: format) {
            let set = icc.withUnsafeBytes { ip_JxlEncoderSetICCProfile(encoder, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
            if set == JXL_ENC_SUCCESS { return }
        }
        var encoding = JxlColorEncoding()
        ip_JxlColorEncodingSetToSRGB(&encoding, format == .gray8 || format == .grayAlpha8 ? 1 : 0)
        guard ip_JxlEncoderSetColorEncoding(encoder, &encoding) == JXL_ENC_SUCCESS else {
            throw ImagePipeError.encodingFailed(reason: "libjxl refused the sRGB colour encoding")
        }
    }

    /// EXIF in an `Exif` box (a zero offset, then the TIFF structure) and XMP in an `xml ` box.
    private static func addMetadataBoxes(_ encoder: OpaquePointer, metadata: ImageMetadata) throws {
        let boxes = [metadata.exif.map { ("Exif", Data([0, 0, 0, 0]) + $0) }, metadata.xmp.map { ("xml ", $0) }].compactMap { $0 }
        guard !boxes.isEmpty else { return }
        guard ip_JxlEncoderUseBoxes(encoder) == JXL_ENC_SUCCESS else { throw ImagePipeError.encodingFailed(reason: "libjxl refused metadata boxes") }
        for (type, contents) in boxes {
            let added = contents.withUnsafeBytes { ip_JxlEncoderAddBox(encoder, type, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, 0) }
            guard added == JXL_ENC_SUCCESS else { throw ImagePipeError.encodingFailed(reason: "libjxl refused the \(type) box") }
        }
        ip_JxlEncoderCloseBoxes(encoder)
    }

    private static func frameSettings(_ encoder: OpaquePointer, options: ImageEncodeOptions) throws -> OpaquePointer {
        guard let settings = ip_JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw ImagePipeError.encodingFailed(reason: "libjxl could not make frame settings")
        }
        let effort = min(max(options.extras[.jxlEffort] ?? JXLCoder.defaultEffort, 1), 9)
        let lossless = isLossless(options)
        guard ip_JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)) == JXL_ENC_SUCCESS,
            lossless
                ? ip_JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS
                : ip_JxlEncoderSetFrameDistance(settings, JXLDistance.forQuality(options.qualityPercent)) == JXL_ENC_SUCCESS
        else { throw ImagePipeError.encodingFailed(reason: "invalid JPEG XL encode options") }
        return settings
    }

    /// `lossless`, or quality 1.0: cjxl's `-q 100` is lossless too.
    private static func isLossless(_ options: ImageEncodeOptions) -> Bool {
        options.lossless || options.qualityPercent >= 100
    }

    /// The error to throw for a failed libjxl call: the cancellation, else libjxl's code.
    private static func error(_ encoder: OpaquePointer, doing what: String) throws -> ImagePipeError {
        try DecodeCancellation.checkCurrent()
        let code = ip_JxlEncoderGetError(encoder)
        if code == JXL_ENC_ERR_OOM { return .limitExceeded(.bytes, value: .max, maximum: .max) }
        return .encodingFailed(reason: "libjxl failed \(what) (error \(code.rawValue))")
    }
}

/// The compressed bytes libjxl has written so far.
private struct JXLOutput {
    private(set) var bytes = [UInt8](repeating: 0, count: 64 << 10)
    private var written = 0

    var data: Data { Data(bytes[..<written]) }

    /// Takes everything libjxl can give now, growing the buffer as needed.
    mutating func drain(_ encoder: OpaquePointer, error: () throws -> ImagePipeError) throws {
        while true {
            var status = JXL_ENC_SUCCESS
            bytes.withUnsafeMutableBufferPointer { buffer in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
                var available = buffer.count - written
                status = ip_JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
            }
            switch status {
            case JXL_ENC_SUCCESS: return
            case JXL_ENC_NEED_MORE_OUTPUT: bytes += [UInt8](repeating: 0, count: bytes.count)
            default: throw try error()
            }
        }
    }
}
