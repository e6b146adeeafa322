/// A transformer defined on one frame of pixels. The image-level work is shared here: the
/// orientation is applied first (transformers see the picture upright, so `crop:0,0,10,10` is the
/// top-left corner a viewer sees), and animations are transformed frame by frame, lazily.
public protocol PixelTransformer: ImageTransformer {
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer
}

extension PixelTransformer {
    public func transform(_ image: Image) throws -> Image {
        let upright = try image.applyingOrientation()
        var output: Image
        switch upright.content {
        case .still(let buffer):
            output = Image(try transform(buffer), format: upright.format, scale: upright.scale, metadata: upright.metadata)
        case .animated(let animation):
            let poster = try transform(animation.posterFrame)
            let mapped = try animation.mapped(size: poster.size) { [self] frame in try self.transform(frame) }
            output = Image(animation: mapped, scale: upright.scale, metadata: upright.metadata)
        }
        output.metadata.isTransformed = true
        return output
    }
}

/// An integer rectangle in pixels.
public struct ImageRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: ImageSize { ImageSize(width: width, height: height) }
    public var description: String { "\(x),\(y),\(width),\(height)" }
}

/// How SDWebImage prints numbers in transformer keys (`%f`).
func keyNumber(_ value: Double) -> String { String(format: "%f", value) }
