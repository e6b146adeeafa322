/// A transformer defined on one frame of pixels. The image-level work is shared here: the output
/// size is checked against the image's pixel limit before any pixel is touched, the orientation is
/// applied (transformers see the picture upright, so `crop:0,0,10,10` is the top-left corner a
/// viewer sees), and animations are transformed frame by frame, lazily.
///
/// The pixel limit is the `maxPixels` of the options the image was decoded with (the request's:
/// `ImageCodersManager.decodeImage` records them, and `apply(to:)` carries them to the output), else
/// `ImageDecodeOptions.defaultMaxPixels`. Calling `transform(_:PixelBuffer)` directly skips it.
public protocol PixelTransformer: ImageTransformer {
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer
    /// The size `transform` makes a frame of `size` (upright), computed without touching pixels.
    /// Throws `limitExceeded` when the size cannot be computed (it overflows). Default: `size`.
    func outputSize(for size: ImageSize) throws -> ImageSize
}

extension PixelTransformer {
    public func outputSize(for size: ImageSize) throws -> ImageSize { size }

    public func transform(_ image: Image) throws -> Image {
        try (image.metadata.decodeOptions ?? ImageDecodeOptions()).checkPixelLimit(try outputSize(for: image.displaySize))
        let upright = try image.applyingOrientation()
        var output: Image
        switch upright.content {
        case .still(let buffer):
            let transformed = try transform(buffer)
            try DecodeCancellation.checkCurrent()
            output = Image(transformed, format: upright.format, scale: upright.scale, metadata: upright.metadata)
        case .animated(let animation):
            let mapped = try animation.mapped { [self] frame in
                let transformed = try self.transform(frame)
                try DecodeCancellation.checkCurrent()
                return transformed
            }
            output = Image(animation: mapped, scale: upright.scale, metadata: upright.metadata)
        }
        output.metadata.isTransformed = true
        return output
    }
}

/// An integer rectangle in pixels.
public struct ImageRect: Hashable, Sendable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package var size: ImageSize { ImageSize(width: width, height: height) }
    public var description: String { "\(x),\(y),\(width),\(height)" }
}
