import CJXL
import Foundation
import PipelineCore

/// A still JPEG XL, or the first frame of an animation when only one is wanted: one pass of
/// libjxl's decoder, header first (limits checked before any pixel is allocated), then the frame
/// straight into the output buffer.
enum JXLStillDecoder {
    struct Result {
        var pixels: PixelBuffer
        var info: JXLImageInfo
        var colorProfile: ImageColorProfile?
        var warnings: [ImageDecodeWarning]
    }

    /// The header alone: what it says, and the colour profile of the pixels libjxl gives.
    static func header(_ data: Data, options: ImageDecodeOptions) throws -> (info: JXLImageInfo, profile: ImageColorProfile?, warning: ImageDecodeWarning?) {
        let session = try JXLDecoderSession(data, events: JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, checkpoint: DecodeCheckpoint(options: options))
        return try session.readHeader(options: options, colour: true)
    }

    /// The decoded image, or nil when the header says the file is an animation and `options`
    /// want every frame (the caller then builds a `JXLAnimationProvider`).
    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Result? {
        let checkpoint = DecodeCheckpoint(options: options)
        let session = try JXLDecoderSession(data, events: JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FULL_IMAGE, checkpoint: checkpoint)
        let (info, profile, profileWarning) = try session.readHeader(options: options, colour: true)
        if info.isAnimated && !options.firstFrameOnly { return nil }
        try info.checkLimits(options)
        try checkpoint.check()
        let format = info.pixelFormat
        var pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: info.size.width, height: info.size.height, format: format))
        let outcome = try pixels.withUnsafeMutableBytes { try session.decodeFrame(into: $0, format: format) }
        var warnings = [profileWarning].compactMap { $0 }
        switch outcome {
        case .complete:
            break
        case .truncated(drawn: true):
            warnings.append(ImageDecodeWarning(.truncated, message: "JPEG XL: file is truncated: the part decoded is shown, the rest left blank"))
        case .truncated(drawn: false):
            throw ImagePipeError.badImageData(reason: "JPEG XL data is truncated before any of its pixels")
        case .noMoreFrames:
            throw ImagePipeError.badImageData(reason: "JPEG XL file has no frame")
        }
        var buffer = try PixelBuffer(width: info.size.width, height: info.size.height, format: format, bytes: pixels)
        let target = options.targetSize(for: info.size)
        if target != info.size { buffer = buffer.resampled(to: target) }
        return Result(pixels: buffer, info: info, colorProfile: profile, warnings: warnings)
    }
}
