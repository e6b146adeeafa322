import Foundation
import PipelineCore

/// Chooses the bytes the disk cache stores for an image (SDWebImage's `SDWebImageCacheSerializer`),
/// e.g. re-encode WebP as PNG. Gets the image, the original bytes (nil after a transform) and the URL;
/// nil lets the cache encode the image itself.
public struct ImageCacheSerializer: Sendable {
    public let serialize: @Sendable (Image, Data?, URL?) -> Data?
    public init(_ serialize: @escaping @Sendable (Image, Data?, URL?) -> Data?) { self.serialize = serialize }
}
