import Foundation
import PipelineCore

extension DefaultImageCache {
    /// Encodes `image` in its `storageFormat`, every frame for an animation: the coder pulls the
    /// frames one at a time (SDWebImage's cache, too, hands the coder the image, not its frames).
    static func encode(_ image: Image, coder: any ImageCoder, options: ImageEncodeOptions) throws -> Data {
        let format = image.storageFormat
        if image.frameCount > 1, !options.firstFrameOnly {
            return try coder.encode(image, as: format, options: options)
        }
        return try coder.encode(image.firstFrameOnly(), as: format, options: options)
    }
}
