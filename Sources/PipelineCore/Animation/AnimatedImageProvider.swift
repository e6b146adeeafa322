import Foundation

/// The frames of one animation, produced on request. An `AnimatedImageCoder` makes one per file.
///
/// Must be safe to call from several tasks at once and in any index order: players, encoders and
/// transformers ask for frames randomly. Composition (offsets, blending, disposal) is the
/// provider's job; every frame it returns is the whole canvas.
public protocol AnimatedImageProvider: Sendable {
    /// The file's bytes, kept so the cache can store them and a copy can be rebuilt.
    var data: Data { get }
    var format: ImageFormat { get }
    /// The size of every frame the provider returns (the thumbnail size when decoding one).
    var canvasSize: ImageSize { get }
    var pixelFormat: PixelFormat { get }
    var frameCount: Int { get }
    /// Times to play; 0 means forever.
    var loopCount: Int { get }
    /// Seconds frame `index` is shown, after the format's clamping rule (GIF: under 11 ms → 100 ms;
    /// WebP: 10 ms or less → 100 ms).
    func duration(at index: Int) -> Double
    /// Frame `index`, composited.
    func frame(at index: Int) throws -> PixelBuffer
    /// What reading the file's structure recovered from (a file cut short after some frames);
    /// `decodeAnimation` puts them on the image. Default: none. Frames are decoded lazily, so a
    /// problem found only while decoding a frame cannot become a warning: it throws from `frame(at:)`.
    var warnings: [ImageDecodeWarning] { get }
}

extension AnimatedImageProvider {
    public var warnings: [ImageDecodeWarning] { [] }
}
