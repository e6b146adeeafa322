import CWebP
import Foundation
import PipelineCore

/// A still WebP (VP8, VP8L, or VP8X with ALPH), or the first composited frame of an animation when
/// only one is wanted.
enum WebPStillDecoder {
    /// The pixels, and a `.truncated` warning when the file was cut short but libwebp could still
    /// decode some of its rows.
    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> (PixelBuffer, [ImageDecodeWarning]) {
        try data.withUnsafeBytes { bytes in
            let features = try WebPPixelDecoder.features(bytes)
            if features.has_animation != 0 {
                guard let provider = try WebPAnimationProvider(data: data, options: options) else {
                    throw ImagePipeError.badImageData(reason: "WebP says it is animated but has no ANIM chunk")
                }
                return (try provider.frame(at: 0), [])
            }
            let size = ImageSize(width: Int(features.width), height: Int(features.height))
            try options.checkPixelLimit(size)
            try options.checkDecoderMemory(WebPPixelDecoder.decoderMemoryEstimate(features))
            // RGB stays RGB: a third less memory than widening every opaque photo to RGBA.
            let format: PixelFormat = features.has_alpha != 0 ? .rgba8 : .rgb8
            let target = options.targetSize(for: size)
            do {
                return (try WebPPixelDecoder.decode(bytes, as: format, scaledTo: target), [])
            } catch let error as ImagePipeError where error == WebPPixelDecoder.error(VP8_STATUS_NOT_ENOUGH_DATA) {
                guard let (pixels, rows) = try WebPPixelDecoder.decodeRowsPresent(bytes, as: format, scaledTo: target) else { throw error }
                let warning = ImageDecodeWarning(.truncated, message: "WebP: file is truncated: \(rows) of \(target.height) rows decoded, the rest left blank")
                return (pixels, [warning])
            }
        }
    }

    /// The first frame of an animation whose bytes are still arriving, once that frame is complete.
    static func firstFrame(ofPartial data: Data, options: ImageDecodeOptions) throws -> PixelBuffer? {
        guard let demuxer = try WebPDemuxer(data, partial: true), demuxer.frameCount > 0 else { return nil }
        let size = demuxer.canvasSize
        try options.checkPixelLimit(size)
        return try demuxer.withFrame(0) { iterator -> PixelBuffer? in
            guard iterator.complete != 0 else { return nil }
            let frame = try WebPFrameInfo(iterator, canvas: size)
            var canvas = try WebPCanvas(size: size)
            canvas.draw(try WebPPixelDecoder.decode(iterator.fragmentBytes, as: .rgba8), at: frame, blending: false)
            var buffer = try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: canvas.pixels)
            if !demuxer.hasAlphaFlag && frame.covers(size) && !frame.hasAlpha { buffer = buffer.converted(to: .rgb8) }
            let target = options.targetSize(for: size, frameCount: demuxer.frameCount)
            return target == size ? buffer : buffer.resampled(to: target)
        }
    }
}
