import PipelineCore

/// What one request holds at its peak, estimated before any pixel is decoded, for admission against
/// `ImageServerConfiguration.maxWorkingMemory`: the decoder's own estimate (the decoded canvas and
/// its buffers, from the header), plus the transformed output's RGBA pixels, plus what the encoder
/// holds per output pixel. A sum, so an upper bound of the peak.
enum WorkingMemoryEstimate {
    /// Bytes an encoder holds per output pixel beyond the RGBA input, measured as peak RSS of
    /// `imagepipe convert` of a 20-megapixel photo to each format less the decode's own peak:
    /// libaom's frame buffers and libwebp's YUV and analysis planes dominate.
    static func encoderBytesPerPixel(_ format: ImageFormat) -> Int {
        switch format {
        case .jpeg: 2
        case .png, .gif: 3
        case .webp: 14
        default: 17  // AVIF and HEIF measured; the most for formats not measured
        }
    }

    /// The estimate for a source whose decode `decode` estimates (nil: the coder cannot tell, and
    /// only the output is counted), resized by `options` and encoded as `format`.
    static func bytes(decode: ImageDecodeEstimate?, options: ProcessingOptions, format: ImageFormat) -> Int {
        let decoded = decode?.outputSize
        let output =
            decoded.map { size in
                options.changesPixels ? ResizePlan(source: size, options: options).stages.map { $0.pixelCount ?? .max }.max() ?? 0 : size.pixelCount ?? .max
            } ?? 0
        return sum([decode?.bytes ?? 0, product(output, 4 + encoderBytesPerPixel(format))])
    }

    /// The bytes an encode of `image` as `format` holds: its pixels and the encoder's own.
    static func encodeBytes(of image: Image, as format: ImageFormat) -> Int {
        product(image.pixelSize.pixelCount ?? .max, 4 + encoderBytesPerPixel(format))
    }

    private static func product(_ a: Int, _ b: Int) -> Int {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : value
    }

    private static func sum(_ values: [Int]) -> Int {
        values.reduce(0) { total, value in
            let (next, overflow) = total.addingReportingOverflow(value)
            return overflow ? .max : next
        }
    }
}
