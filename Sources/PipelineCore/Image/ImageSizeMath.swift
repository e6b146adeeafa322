import Foundation

/// The size arithmetic of thumbnails and byte budgets, exactly as SDWebImage's
/// `SDImageCoderHelper` does it (its test table is in this module's tests), in integer arithmetic
/// so that an exact quotient never rounds up by a floating-point hair.
package enum ImageSizeMath {
    /// The size an image of `size` takes inside `box`.
    ///
    /// - Preserving the aspect ratio, the side that limits fills the box and the other is rounded up.
    ///   Otherwise the result is the box (stretch).
    /// - Without upscaling, each side is clamped to the image's.
    /// - A box or image with a non-positive side means "no box": the image's size is returned.
    package static func scaledSize(
        _ size: ImageSize, toFit box: ImageSize, preserveAspectRatio: Bool, allowUpscaling: Bool
    ) -> ImageSize {
        guard !size.isEmpty, !box.isEmpty else { return size }
        var result: ImageSize
        if preserveAspectRatio {
            // Image ratio w/h against box ratio W/H, compared without division: w*H vs W*h, in
            // double width (sizes come from requests). The other side is then below the box's.
            if wide(size.width, box.height) > wide(box.width, size.height) {
                result = ImageSize(width: box.width, height: ceilDiv(wide(box.width, size.height), size.width))
            } else {
                result = ImageSize(width: ceilDiv(wide(box.height, size.width), size.height), height: box.height)
            }
        } else {
            result = box
        }
        if !allowUpscaling {
            result.width = min(result.width, size.width)
            result.height = min(result.height, size.height)
        }
        return result
    }

    /// The largest size with `size`'s aspect ratio whose pixels, at 4 bytes each and times
    /// `frameCount`, fit in `limitBytes`. Each side is at least 1; an empty image gives 1 x 1.
    /// Callers fit the image into this box without upscaling, so small images stay as they are.
    static func scaledDownSize(_ size: ImageSize, limitBytes: Int, frameCount: Int = 1) -> ImageSize {
        guard !size.isEmpty else { return ImageSize(width: 1, height: 1) }
        let pixels = Double(max(limitBytes, 0) / 4) / Double(max(frameCount, 1))
        let ratio = Double(size.height) / Double(size.width)
        let width = max(Int((pixels / ratio).squareRoot().rounded(.down)), 1)
        let height = max(Int((Double(width) * ratio).rounded(.down)), 1)
        return ImageSize(width: width, height: height)
    }

    /// The default byte budget for `.scaleDownLargeImages` without a context value: SDWebImage's
    /// macOS figure, 90 MiB, about a 24-megapixel photo.
    static let defaultScaleDownLimitBytes = 90 * 1024 * 1024

    @inline(__always)
    static func ceilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }

    /// The product of two non-negative sides in double width, comparable without overflow.
    private static func wide(_ a: Int, _ b: Int) -> UInt128 { UInt128(a) * UInt128(b) }

    /// `ceil(a / b)` of a double-width product; the caller knows the quotient fits.
    private static func ceilDiv(_ a: UInt128, _ b: Int) -> Int { Int((a + UInt128(b) - 1) / UInt128(b)) }
}
