/// One frame of decoded pixels: tightly packed rows (`bytesPerRow == width * bytesPerPixel`),
/// top row first, in `format`.
///
/// Immutable and cheap to copy (the bytes are copy-on-write). Every initialiser checks its sizes
/// with overflow-checked arithmetic, so a buffer's `bytes.count` always matches its dimensions.
public struct PixelBuffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let bytes: [UInt8]

    /// Wraps existing bytes. Throws when `bytes.count` is not `width * height * bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, bytes: [UInt8]) throws {
        let expected = try Self.byteCount(width: width, height: height, format: format)
        guard bytes.count == expected else {
            throw ImagePipeError.badImageData(
                reason: "pixel buffer of \(width)x\(height) \(format.rawValue) needs \(expected) bytes, got \(bytes.count)")
        }
        self.width = width
        self.height = height
        self.format = format
        self.bytes = bytes
    }

    /// A buffer filled with one colour (transparent black by default).
    public init(width: Int, height: Int, format: PixelFormat, fill: ImageColor = .clear) throws {
        let count = try Self.byteCount(width: width, height: height, format: format)
        let pixel = Self.encode(fill, as: format)
        var bytes = [UInt8](repeating: 0, count: count)
        if pixel.contains(where: { $0 != 0 }) {
            bytes.withUnsafeMutableBufferPointer { out in
                var offset = 0
                while offset < count {
                    for channel in 0..<pixel.count { out[offset + channel] = pixel[channel] }
                    offset += pixel.count
                }
            }
        }
        self.init(unchecked: width, height: height, format: format, bytes: bytes)
    }

    /// For code that has already checked the size (conversions, coders after their own checks).
    package init(unchecked width: Int, height: Int, format: PixelFormat, bytes: [UInt8]) {
        assert(bytes.count == width * height * format.bytesPerPixel)
        self.width = width
        self.height = height
        self.format = format
        self.bytes = bytes
    }

    /// Bytes needed for a tightly packed buffer, or a `limitExceeded(.bytes)` error when the product
    /// overflows: a header that claims 2^31 x 2^31 pixels must fail before anything is allocated.
    public static func byteCount(width: Int, height: Int, format: PixelFormat) throws -> Int {
        guard width > 0, height > 0 else {
            throw ImagePipeError.badImageData(reason: "image has no pixels (\(width)x\(height))")
        }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (count, o2) = pixels.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !o1, !o2 else {
            throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max)
        }
        return count
    }

    public var size: ImageSize { ImageSize(width: width, height: height) }
    package var bytesPerRow: Int { width * format.bytesPerPixel }
    /// Memory held by the pixels, the unit of every cache's cost.
    package var memoryCost: Int { bytes.count }

    /// The pixel at (x, y) as a colour (gray formats spread to r = g = b).
    package func color(x: Int, y: Int) -> ImageColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let o = (y * width + x) * format.bytesPerPixel
        switch format {
        case .gray8: return ImageColor(red: bytes[o], green: bytes[o], blue: bytes[o])
        case .grayAlpha8: return ImageColor(red: bytes[o], green: bytes[o], blue: bytes[o], alpha: bytes[o + 1])
        case .rgb8: return ImageColor(red: bytes[o], green: bytes[o + 1], blue: bytes[o + 2])
        case .rgba8: return ImageColor(red: bytes[o], green: bytes[o + 1], blue: bytes[o + 2], alpha: bytes[o + 3])
        }
    }

    /// True when some pixel is not fully opaque (always false for formats without alpha).
    package var hasTransparentPixels: Bool {
        guard format.hasAlpha else { return false }
        let step = format.bytesPerPixel
        return bytes.withUnsafeBufferPointer { p in
            var i = step - 1
            while i < p.count {
                if p[i] != 255 { return true }
                i += step
            }
            return false
        }
    }

    package static func encode(_ color: ImageColor, as format: PixelFormat) -> [UInt8] {
        switch format {
        case .gray8: [color.luma]
        case .grayAlpha8: [color.luma, color.alpha]
        case .rgb8: [color.red, color.green, color.blue]
        case .rgba8: [color.red, color.green, color.blue, color.alpha]
        }
    }
}
