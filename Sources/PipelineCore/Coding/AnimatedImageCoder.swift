import Foundation

/// A coder whose animations decode frames lazily (SDWebImage's `SDAnimatedImageCoder`).
public protocol AnimatedImageCoder: ImageCoder {
    /// A provider for the animation in `data`, or nil when the data holds a still image. Only the
    /// container is parsed here; frames are decoded when asked for. Limits in `options` (pixels,
    /// frames, and `checkAnimationPixels` with the full canvas size) are checked before anything is
    /// allocated.
    func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)?
}
