import Foundation

/// A coder that can show an image while its bytes are still arriving.
public protocol ProgressiveImageCoder: ImageCoder {
    /// Whether these (possibly partial) bytes can start an incremental decode.
    func canDecodeIncrementally(_ data: Data) -> Bool
    /// A new decoder for one load: the pipeline makes one per download and never shares it.
    func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder
}

extension ProgressiveImageCoder {
    public func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }
}

/// The state of one incremental decode. Called by one task at a time (it is `Sendable` so that
/// task may change); implementations guard their state accordingly.
public protocol IncrementalImageDecoder: AnyObject, Sendable {
    /// Gives the decoder all bytes received so far (cumulative, as SDWebImage does), and whether
    /// they are all of them.
    func update(_ data: Data, isComplete: Bool)
    /// What can be shown now: the rows or scans decoded so far (with `metadata.isIncremental` set),
    /// the final image once complete, or nil when nothing can be shown yet.
    func currentImage() throws -> Image?
}
