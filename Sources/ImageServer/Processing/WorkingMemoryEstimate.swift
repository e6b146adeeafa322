import PipelineCore

/// What one request holds at its peak, estimated before any pixel is decoded, for admission against
/// `ImageServerConfiguration.maxWorkingMemory`: the decoder's own estimate (the decoded canvas and
/// its buffers, from the header), plus the transformed output's RGBA pixels, plus what the encoder
/// holds per output pixel. A sum, so an upper bound of the peak.
enum WorkingMemoryEstimate {
    /// Bytes an encoder holds beyond the RGBA input for `pixels` of output, measured as peak RSS of
    /// `imagepipe convert` of a 20-megapixel photo to each format less the decode's own peak:
    /// libwebp's YUV and analysis planes dominate, and libaom's frame buffers up to the size
    /// CodersAVIF encodes whole (2048², above it a grid of 512 px cells, one cell's buffers at once).
    static func encoderBytes(_ format: ImageFormat, pixels: Int) -> Int {
        switch format {
        case .jpeg: return product(pixels, 2)
        case .png, .gif: return product(pixels, 3)
        case .webp: return product(pixels, 14)
        case .avif where pixels > avifWholeEncodeLimit: return product(pixels, 4)
        default: return product(pixels, 17)  // AVIF whole, HEIF; the most for formats not measured
        }
    }

    /// The largest AVIF CodersAVIF encodes as one AV1 image (`AVIFCoder.defaultGridMinimumPixels`).
    static let avifWholeEncodeLimit = 2048 * 2048

    /// The estimate for a source whose decode `decode` estimates (nil: the coder cannot tell, and
    /// only the output is counted), resized by `options` and encoded as `format`.
    static func bytes(decode: ImageDecodeEstimate?, options: ProcessingOptions, format: ImageFormat) -> Int {
        let decoded = decode?.outputSize
        let output =
            decoded.map { size in
                options.changesPixels ? ResizePlan(source: size, options: options).stages.map { $0.pixelCount ?? .max }.max() ?? 0 : size.pixelCount ?? .max
            } ?? 0
        return sum([decode?.bytes ?? 0, product(output, 4), encoderBytes(format, pixels: output)])
    }

    /// The bytes an encode of `image` as `format` holds: its pixels and the encoder's own.
    static func encodeBytes(of image: Image, as format: ImageFormat) -> Int {
        let pixels = image.pixelSize.pixelCount ?? .max
        return sum([product(pixels, 4), encoderBytes(format, pixels: pixels)])
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
