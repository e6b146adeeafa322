/// Turns colour into BT.601 luma, keeping alpha. SDWebImage does this through a Core Image filter;
/// the key is ImagePipe's own.
public struct GrayscaleTransformer: PixelTransformer {
    public init() {}
    public var key: String { "ImagePipeGrayscaleTransformer()" }
    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        buffer.converted(to: buffer.format.hasAlpha ? .grayAlpha8 : .gray8)
    }
}
