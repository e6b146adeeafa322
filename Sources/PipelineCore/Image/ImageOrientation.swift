/// EXIF orientation (TIFF tag 0x0112): how the stored pixels must be turned to show the picture
/// upright. Raw values are the EXIF numbers 1–8.
///
/// Decoders record the tag and leave the pixels as stored (SDWebImage's behaviour on Linux, where no
/// view applies it later); `Image.applyingOrientation()` turns them upright when the caller asks.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left to bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to show upright.
    case right = 6
    /// 7: mirrored along the top-right to bottom-left diagonal (transversed).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to show upright.
    case left = 8

    /// The orientation for an EXIF value; values outside 1–8 (0 is common) mean "up".
    package init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }

    /// True when showing the image upright swaps width and height.
    var swapsDimensions: Bool { rawValue >= 5 }

    /// The size shown once the orientation is applied.
    package func displaySize(for stored: ImageSize) -> ImageSize {
        swapsDimensions ? ImageSize(width: stored.height, height: stored.width) : stored
    }
}

extension PixelBuffer {
    /// The pixels turned so that a viewer ignoring orientation shows them upright.
    package func applying(_ orientation: ImageOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let outSize = orientation.displaySize(for: size)
        let (ow, oh) = (outSize.width, outSize.height)
        let bpp = format.bytesPerPixel
        let (w, h) = (width, height)
        var out = [UInt8](repeating: 0, count: bytes.count)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for oy in 0..<oh {
                    for ox in 0..<ow {
                        // Where the upright pixel (ox, oy) is stored in the source.
                        let sx: Int, sy: Int
                        switch orientation {
                        case .up: (sx, sy) = (ox, oy)
                        case .upMirrored: (sx, sy) = (w - 1 - ox, oy)
                        case .down: (sx, sy) = (w - 1 - ox, h - 1 - oy)
                        case .downMirrored: (sx, sy) = (ox, h - 1 - oy)
                        case .leftMirrored: (sx, sy) = (oy, ox)
                        case .right: (sx, sy) = (oy, h - 1 - ox)
                        case .rightMirrored: (sx, sy) = (w - 1 - oy, h - 1 - ox)
                        case .left: (sx, sy) = (w - 1 - oy, ox)
                        }
                        let s = (sy * w + sx) * bpp
                        let d = (oy * ow + ox) * bpp
                        for c in 0..<bpp { output[d + c] = input[s + c] }
                    }
                }
            }
        }
        return PixelBuffer(unchecked: ow, height: oh, format: format, bytes: out)
    }
}
