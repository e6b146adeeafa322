import ImagePipe
import PipelineCore

/// `sh:`: an unsharp mask, the image plus its difference from a Gaussian blur of `sigma` (the
/// core's blur), colour channels only. imgproxy calls libvips' `sharpen`, which works on
/// lightness; the same sigma sharpens edges of the same width.
struct SharpenTransformer: PixelTransformer {
    let sigma: Double

    var key: String { "ImageServer.Sharpen(\(sigma))" }

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let blurred = try BlurTransformer(radius: sigma).transform(buffer)
        let channels = buffer.format.bytesPerPixel
        let colours = buffer.format.hasAlpha ? channels - 1 : channels
        let rowBytes = buffer.width * channels
        var out = buffer.bytes
        try out.withUnsafeMutableBufferPointer { output in
            try blurred.bytes.withUnsafeBufferPointer { soft in
                for y in 0..<buffer.height {
                    if y & 63 == 0 { try DecodeCancellation.checkCurrent() }
                    var offset = y * rowBytes
                    for _ in 0..<buffer.width {
                        for channel in 0..<colours {
                            let sharp = 2 * Int(output[offset + channel]) - Int(soft[offset + channel])
                            output[offset + channel] = UInt8(clamping: sharp)
                        }
                        offset += channels
                    }
                }
            }
        }
        return try PixelBuffer(width: buffer.width, height: buffer.height, format: buffer.format, bytes: out)
    }
}
