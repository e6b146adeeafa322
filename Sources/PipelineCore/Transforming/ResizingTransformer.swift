import Foundation

/// Resizes to a size (SDWebImage's `SDImageResizingTransformer`).
public struct ResizingTransformer: PixelTransformer {
    /// Raw values are SDWebImage's `SDImageScaleMode`, as printed in the key.
    public enum ScaleMode: Int, Sendable, Hashable, CaseIterable {
        /// Stretch to exactly the size.
        case fill = 0
        /// Fit inside the size, aspect kept. The result is the fitted size, without padding (as Nuke,
        /// libvips and ImageMagick do; SDWebImage pads to the full size with transparency).
        case aspectFit = 1
        /// Cover the size, aspect kept, cropping the overflow around the centre.
        case aspectFill = 2
    }

    public let size: ImageSize
    public let scaleMode: ScaleMode
    public let filter: ResamplingFilter

    public init(size: ImageSize, scaleMode: ScaleMode = .fill, filter: ResamplingFilter = .lanczos3) {
        precondition(size.width > 0 && size.height > 0, "resize target \(size) has no pixels")
        self.size = size
        self.scaleMode = scaleMode
        self.filter = filter
    }

    public var key: String {
        let filterSuffix = filter == .lanczos3 ? "" : ",\(filter.rawValue)"
        return "SDImageResizingTransformer({\(keyNumber(Double(size.width))),\(keyNumber(Double(size.height)))},\(scaleMode.rawValue)\(filterSuffix))"
    }

    public func outputSize(for input: ImageSize) throws -> ImageSize {
        switch scaleMode {
        case .fill, .aspectFill: size
        case .aspectFit: ImageSizeMath.scaledSize(input, toFit: size, preserveAspectRatio: true, allowUpscaling: true)
        }
    }

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        switch scaleMode {
        case .fill, .aspectFit:
            return buffer.resampled(to: try outputSize(for: buffer.size), filter: filter)
        case .aspectFill:
            // Crop the source to the target's aspect first, then resample once: sharper and cheaper
            // than scaling the whole image and cropping after. The source's side times the target's
            // can overflow; then that side is not the one cropped.
            func side(_ source: Int, _ numerator: Int, _ denominator: Int) -> Int {
                let (product, overflow) = source.multipliedReportingOverflow(by: numerator)
                return overflow ? Int.max : max(product / denominator, 1)
            }
            let cropWidth = min(buffer.width, side(buffer.height, size.width, size.height))
            let cropHeight = min(buffer.height, side(buffer.width, size.height, size.width))
            let rect = ImageRect(x: (buffer.width - cropWidth) / 2, y: (buffer.height - cropHeight) / 2, width: cropWidth, height: cropHeight)
            return try CroppingTransformer(rect: rect).transform(buffer).resampled(to: size, filter: filter)
        }
    }
}
