/// What one decode will hold in memory at its peak, known from the file's header before any pixel
/// is decoded: the output's pixels plus the decoder's own buffers. The pipeline reserves `bytes`
/// from the `DecodeMemoryBudget` for as long as the decode runs.
public struct ImageDecodeEstimate: Hashable, Sendable {
    /// The decoded canvas at the size the options ask for (thumbnail and byte budget applied).
    package var outputSize: ImageSize
    /// Bytes per decoded pixel: 4 (RGBA) unless the coder knows its output's pixel format.
    package var bytesPerPixel: Int
    /// Bytes the decoder holds besides the output's pixels: row and coefficient buffers, a
    /// full-size canvas it scales down from, an animation's compositing canvas. 0 when the coder
    /// cannot tell, so the estimate is then the output's pixels alone.
    package var workingBytes: Int

    package init(outputSize: ImageSize, bytesPerPixel: Int = 4, workingBytes: Int = 0) {
        self.outputSize = outputSize
        self.bytesPerPixel = bytesPerPixel
        self.workingBytes = workingBytes
    }

    /// The estimate for a canvas of `headerSize` decoded with `options`: the output at the options'
    /// target size, plus `workingBytes`.
    public init(headerSize: ImageSize, options: ImageDecodeOptions, bytesPerPixel: Int = 4, workingBytes: Int = 0) {
        self.init(outputSize: options.targetSize(for: headerSize), bytesPerPixel: bytesPerPixel, workingBytes: workingBytes)
    }

    /// The output's pixel bytes plus the working bytes; `Int.max` when that overflows (a size no
    /// budget admits).
    package var bytes: Int {
        guard let pixels = outputSize.pixelCount else { return .max }
        let (output, o1) = pixels.multipliedReportingOverflow(by: max(bytesPerPixel, 1))
        let (total, o2) = output.addingReportingOverflow(max(workingBytes, 0))
        return o1 || o2 ? .max : total
    }
}
