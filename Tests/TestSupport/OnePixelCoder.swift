import Foundation
import PipelineCore

/// Decodes any bytes to one transparent pixel: for tests about requests and caches, not pixels.
public struct OnePixelCoder: ImageCoder {
    public init() {}
    public func canDecode(_ data: Data) -> Bool { true }
    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        Image(try PixelBuffer(width: 1, height: 1, format: .rgba8))
    }
    public func canEncode(to format: ImageFormat) -> Bool { false }
    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.encodingFailed(reason: "OnePixelCoder does not encode")
    }
}
