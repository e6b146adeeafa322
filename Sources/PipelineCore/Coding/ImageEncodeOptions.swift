/// How to encode: SDWebImage's encode coder options.
public struct ImageEncodeOptions: Hashable, Sendable {
    /// Lossy quality from 0 (smallest) to 1 (best). SDWebImage's default is 1; ours is 0.9, the
    /// point past which JPEG and WebP files grow fast for no visible gain.
    public var quality: Double
    /// Never write more pixels than this box; the image is scaled down first, aspect kept.
    public var maxPixelSize: ImageSize?
    /// Aim for a file no larger than this many bytes (lossy coders lower quality until it fits).
    public var maxFileSize: Int?
    /// Write a still image from an animation's first frame.
    public var firstFrameOnly: Bool
    /// What transparent pixels are composited onto when the format has no alpha (JPEG).
    public var backgroundColor: ImageColor
    /// Write lossless where the format offers both (WebP).
    public var lossless: Bool
    /// Options of a particular coder.
    public var extras: ImageCodingExtras

    @usableFromInline package static let defaultQuality = 0.9

    public init(
        quality: Double = ImageEncodeOptions.defaultQuality,
        maxPixelSize: ImageSize? = nil,
        maxFileSize: Int? = nil,
        firstFrameOnly: Bool = false,
        backgroundColor: ImageColor = .white,
        lossless: Bool = false,
        extras: ImageCodingExtras = ImageCodingExtras()
    ) {
        self.quality = quality
        self.maxPixelSize = maxPixelSize
        self.maxFileSize = maxFileSize
        self.firstFrameOnly = firstFrameOnly
        self.backgroundColor = backgroundColor
        self.lossless = lossless
        self.extras = extras
    }

    /// `quality` clamped to 0…1 and mapped to the 0…100 scale libjpeg and libwebp use.
    package var qualityPercent: Int { Int((min(max(quality, 0), 1) * 100).rounded()) }

    /// The size an image of `size` is written at: fitted into `maxPixelSize` (never up, aspect
    /// kept), or `size` itself without a box.
    package func outputSize(for size: ImageSize) -> ImageSize {
        guard let box = maxPixelSize, !box.isEmpty else { return size }
        return size.fitted(into: box)
    }
}
