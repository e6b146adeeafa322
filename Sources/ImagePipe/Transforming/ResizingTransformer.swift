import Foundation
import PipelineCore

/// Resizes to a size (SDWebImage's `SDImageResizingTransformer`).
public struct ResizingTransformer: PixelTransformer, DescribedTransformer {
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
    package let scaleMode: ScaleMode
    public let filter: ResamplingFilter

    public init(size: ImageSize, scaleMode: ScaleMode = .fill, filter: ResamplingFilter = .lanczos3) {
        precondition(size.width > 0 && size.height > 0, "resize target \(size) has no pixels")
        self.size = size
        self.scaleMode = scaleMode
        self.filter = filter
    }

    public static let transformerDescription = TransformerDescription<Self>(
        name: "resize", keyName: "SDImageResizingTransformer",
        parameters: [
            .size("size", sides: TransformerSpec.sides) { $0.size },
            .choice("mode", [(["fill"], ScaleMode.fill), (["fit"], .aspectFit), (["cover"], .aspectFill)], default: .fill) { "\($0.scaleMode.rawValue)" },
            // SDWebImage's key has no filter: the default prints nothing, so its keys stay SDWebImage's.
            .fixed("filter", summary: "resampling filter", default: ResamplingFilter.lanczos3) { $0.filter == .lanczos3 ? nil : $0.filter.rawValue },
        ],
        make: { Self(size: $0["size"], scaleMode: $0["mode"], filter: $0["filter"]) })

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
