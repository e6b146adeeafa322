/// Turns colour into BT.601 luma, keeping alpha. SDWebImage does this through a Core Image filter;
/// the key is ImagePipe's own.
import PipelineCore

public struct GrayscaleTransformer: PixelTransformer, DescribedTransformer {
    public init() {}
    public static let transformerDescription = TransformerDescription<Self>(
        name: "grayscale", aliases: ["greyscale"], keyName: "ImagePipeGrayscaleTransformer", parameters: [], make: { _ in Self() })
    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        buffer.converted(to: buffer.format.hasAlpha ? .grayAlpha8 : .gray8)
    }
}
