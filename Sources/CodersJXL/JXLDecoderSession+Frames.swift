import CJXL
import Foundation
import PipelineCore

extension JXLDecoderSession {
    /// The header: basic info (its pixel limit checked the moment libjxl has read the size, before
    /// anything is allocated for pixels) and, when subscribed, the colour encoding.
    func readHeader(options: ImageDecodeOptions, colour: Bool) throws -> (JXLImageInfo, ImageColorProfile?, ImageDecodeWarning?) {
        var info: JXLImageInfo?
        while true {
            switch try next() {
            case JXL_DEC_BASIC_INFO:
                let read = JXLImageInfo(try basicInfo())
                try options.checkPixelLimit(read.size)
                guard colour else { return (read, nil, nil) }
                info = read
            case JXL_DEC_COLOR_ENCODING:
                guard let info else { throw ImagePipeError.badImageData(reason: "JPEG XL colour encoding came before its header") }
                let (profile, warning) = colorProfile(options: options)
                return (info, profile, warning)
            case JXL_DEC_NEED_MORE_INPUT:
                throw ImagePipeError.badImageData(reason: "JPEG XL data is truncated before the end of its header")
            case JXL_DEC_ERROR:
                throw ImagePipeError.badImageData(reason: "JPEG XL header is corrupt")
            default:
                throw ImagePipeError.badImageData(reason: "JPEG XL file ends inside its header")
            }
        }
    }

    /// How decoding a frame ended.
    enum FrameOutcome: Equatable {
        case complete
        /// The bytes ran out: `drawn` when libjxl drew what it had into the output.
        case truncated(drawn: Bool)
        /// The file has no more frames.
        case noMoreFrames
    }

    /// Decodes the next frame into `output` as `format`, polling the stop condition through the
    /// runner. For sessions subscribed to `JXL_DEC_FULL_IMAGE`.
    func decodeFrame(into output: UnsafeMutableRawBufferPointer, format: PixelFormat) throws -> FrameOutcome {
        while true {
            switch try next() {
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                try setOutput(output, format: format)
            case JXL_DEC_FULL_IMAGE:
                return .complete
            case JXL_DEC_NEED_MORE_INPUT:
                return .truncated(drawn: flush())
            case JXL_DEC_SUCCESS:
                return .noMoreFrames
            case JXL_DEC_ERROR:
                throw ImagePipeError.badImageData(reason: "JPEG XL codestream is corrupt (libjxl refused it)")
            case JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FRAME_PROGRESSION:
                continue
            default:
                throw ImagePipeError.badImageData(reason: "JPEG XL decode stopped unexpectedly")
            }
        }
    }

    /// Every frame's display time in seconds, from the frame headers alone (libjxl skips the
    /// pixel data of frames nobody asks pixels of). Zero-duration frames are merged into the frame
    /// they are part of, as libjxl's coalescing shows them. Stops counting past `maxFrames`.
    /// For sessions subscribed to `JXL_DEC_FRAME` and not `JXL_DEC_FULL_IMAGE`.
    func frameDurations(secondsPerTick: Double, options: ImageDecodeOptions) throws -> [Double] {
        var durations: [Double] = []
        while true {
            switch try next() {
            case JXL_DEC_FRAME:
                let header = try frameHeader()
                durations.append(Double(header.duration) * secondsPerTick)
                try options.checkFrameLimit(durations.count)
            case JXL_DEC_SUCCESS:
                return durations
            case JXL_DEC_NEED_MORE_INPUT:
                throw ImagePipeError.badImageData(reason: "JPEG XL animation is truncated after \(durations.count) frames")
            case JXL_DEC_ERROR:
                throw ImagePipeError.badImageData(reason: "JPEG XL animation is corrupt after \(durations.count) frames")
            case JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING:
                continue
            default:
                throw ImagePipeError.badImageData(reason: "JPEG XL decode stopped unexpectedly")
            }
        }
    }
}
