import Foundation

/// A size in pixels. Used for image sizes, thumbnail boxes and encode limits.
///
/// Sizes are whole pixels: decoders produce whole pixels, and a fractional thumbnail box
/// (SDWebImage accepts `CGSize`) only ever rounds to one anyway.
public struct ImageSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package static let zero = ImageSize(width: 0, height: 0)

    /// True when either side is zero or negative: such a box means "no box" in SDWebImage's size math.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// `width * height`, or `nil` when the product does not fit in an `Int` (a bomb header).
    public var pixelCount: Int? {
        guard width >= 0, height >= 0 else { return nil }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : product
    }

    public var description: String { "\(width)x\(height)" }
}

extension ImageSize {
    /// This size scaled down into `box`, never up, as SDWebImage sizes thumbnails: keeping the
    /// aspect ratio, the side that limits fills the box and the other is rounded up; otherwise the
    /// box, clamped to this size. A box with a non-positive side means no box: this size.
    public func fitted(into box: ImageSize, preserveAspectRatio: Bool = true) -> ImageSize {
        ImageSizeMath.scaledSize(self, toFit: box, preserveAspectRatio: preserveAspectRatio, allowUpscaling: false)
    }
}
