import CPNGShim
import Foundation
import PipelineCore

/// PNG encoding: upright pixels, scaled into `maxPixelSize`, written in the narrowest colour type
/// that loses nothing (an opaque RGBA image is written as RGB, a gray one as gray).
enum PNGEncoder {
    static let defaultCompressionLevel = 6

    static func encode(_ image: Image, options: ImageEncodeOptions) throws -> Data {
        var pixels = try image.applyingOrientation().firstFrame
        if let box = options.maxPixelSize, !box.isEmpty {
            let fitted = ImageSizeMath.scaledSize(pixels.size, toFit: box, preserveAspectRatio: true, allowUpscaling: false)
            if fitted != pixels.size { pixels = pixels.resampled(to: fitted) }
        }
        pixels = pixels.converted(to: pixels.narrowestLosslessFormat)
        let level = min(max(options.extras[.pngCompressionLevel] ?? defaultCompressionLevel, 0), 9)
        guard let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height) else {
            throw ImagePipeError.encodingFailed(reason: "PNG: \(pixels.size) is larger than PNG allows")
        }
        var output = ipng_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.bytes.withUnsafeBufferPointer { bytes in
            message.withUnsafeMutableBufferPointer { message in
                ipng_encode(bytes.baseAddress, width, height, Int32(pixels.format.channelCount), Int32(level),
                            &output, message.baseAddress, message.count)
            }
        }
        defer { ipng_buffer_free(&output) }
        guard status != 0, let bytes = output.bytes else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImagePipeError.encodingFailed(reason: "PNG: " + reason)
        }
        return Data(bytes: bytes, count: output.size)
    }
}
