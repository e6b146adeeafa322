/// An encoder that states what it holds beyond its RGBA input, so a server can admit requests
/// against a working-memory budget before encoding. Our coders state their own figure (measured as
/// peak RSS of `imagepipe convert` of a 20-megapixel photo less the decode's own peak); an encoder
/// that does not is counted at `ImageCodersManager.unmeasuredEncoderBytesPerPixel`.
package protocol EncoderMemoryEstimating {
    /// Bytes the encoder holds for `pixels` of output in `format`, besides the input pixels.
    func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int
}

extension ImageCodersManager {
    /// Per output pixel, for an encoder that states no figure: the most any of ours holds (libaom
    /// encoding a whole AV1 image).
    package static let unmeasuredEncoderBytesPerPixel = 17

    /// What the encoder for `format` holds for `pixels` of output, besides the input pixels.
    package func encoderWorkingBytes(pixels: Int, format: ImageFormat) -> Int {
        if let encoder = encoder(for: format) as? any EncoderMemoryEstimating {
            return encoder.encoderWorkingBytes(pixels: pixels, format: format)
        }
        return EncoderMemory.bytes(pixels, perPixel: Self.unmeasuredEncoderBytesPerPixel)
    }
}

/// Overflow-safe products for the estimates: a count too large to hold is `Int.max`, which no
/// budget admits.
package enum EncoderMemory {
    package static func bytes(_ pixels: Int, perPixel: Int) -> Int {
        let (value, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        return overflow ? .max : value
    }
}
