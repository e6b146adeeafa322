import Foundation

extension DefaultImageCache {
    /// SDWebImage's choice for an image stored without bytes: the format it was decoded from, else GIF
    /// for an animation, PNG when it has alpha, JPEG otherwise.
    package static func encodingFormat(for image: Image) -> ImageFormat {
        if image.format != .undefined { return image.format }
        if image.frameCount > 1 { return .gif }
        return image.hasAlpha ? .png : .jpeg
    }

    /// Encodes `image` in `encodingFormat(for:)`, every frame for an animation: the coder pulls the
    /// frames one at a time (SDWebImage's cache, too, hands the coder the image, not its frames).
    static func encode(_ image: Image, coder: any ImageCoder, options: ImageEncodeOptions) throws -> Data {
        let format = encodingFormat(for: image)
        if image.frameCount > 1, !options.firstFrameOnly {
            return try coder.encode(image, as: format, options: options)
        }
        return try coder.encode(image.firstFrameOnly(), as: format, options: options)
    }
}
