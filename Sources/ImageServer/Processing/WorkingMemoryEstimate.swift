import PipelineCore

/// What one request holds at its peak, estimated before any pixel is decoded, for admission against
/// `ImageServerConfiguration.maxWorkingMemory`: the decoder's own estimate (the decoded canvas and
/// its buffers, from the header), plus the transformed output's RGBA pixels, plus what the encoder
/// holds for them (each coder states its own figure). A sum, so an upper bound of the peak.
enum WorkingMemoryEstimate {
    /// The estimate for a source whose decode `decode` estimates (nil: the coder cannot tell, and
    /// only the output is counted), resized by `options` and encoded as `format`.
    static func bytes(decode: ImageDecodeEstimate?, options: ProcessingOptions, format: ImageFormat, coders: ImageCodersManager) -> Int {
        let decoded = decode?.outputSize
        let output =
            decoded.map { size in
                options.changesPixels ? ResizePlan(source: size, options: options).stages.map { $0.pixelCount ?? .max }.max() ?? 0 : size.pixelCount ?? .max
            } ?? 0
        return sum([decode?.bytes ?? 0, EncoderMemory.bytes(output, perPixel: 4), coders.encoderWorkingBytes(pixels: output, format: format)])
    }

    /// The bytes an encode of `image` as `format` holds: its pixels and the encoder's own.
    static func encodeBytes(of image: Image, as format: ImageFormat, coders: ImageCodersManager) -> Int {
        let pixels = image.pixelSize.pixelCount ?? .max
        return sum([EncoderMemory.bytes(pixels, perPixel: 4), coders.encoderWorkingBytes(pixels: pixels, format: format)])
    }

    private static func sum(_ values: [Int]) -> Int {
        values.reduce(0) { total, value in
            let (next, overflow) = total.addingReportingOverflow(value)
            return overflow ? .max : next
        }
    }
}
