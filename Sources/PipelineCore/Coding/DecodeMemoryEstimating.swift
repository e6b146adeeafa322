import Foundation

/// What a decode will hold at its peak, estimated from the file's header before anything is
/// allocated.
public struct DecodeMemoryEstimate: Hashable, Sendable {
    /// The decoder's own working memory (coefficient, row and chunk buffers):
    /// what `ImageDecodeOptions.maxDecoderMemory` limits.
    public var decoderBytes: Int
    /// The pixels the decode produces on the way to its result (a full-size canvas before a
    /// resample, colour conversion buffers) and the result itself.
    public var pixelBytes: Int

    public init(decoderBytes: Int, pixelBytes: Int) {
        self.decoderBytes = decoderBytes
        self.pixelBytes = pixelBytes
    }

    /// Both together, saturating at `Int.max`.
    public var totalBytes: Int {
        let (sum, overflow) = decoderBytes.addingReportingOverflow(pixelBytes)
        return overflow ? .max : sum
    }
}

/// A coder that can estimate a decode's memory from the header alone, so that concurrent decodes
/// can reserve it from a shared budget before they start.
public protocol DecodeMemoryEstimating: Sendable {
    /// Nil when the header cannot be read (the decode then fails on its own).
    func decodeMemoryEstimate(for data: Data, options: ImageDecodeOptions) -> DecodeMemoryEstimate?
}
