import Foundation

/// A coder whose animations decode frames lazily (SDWebImage's `SDAnimatedImageCoder`).
public protocol AnimatedImageCoder: ImageCoder {
    /// A provider for the animation in `data`, or nil when the data holds a still image. Only the
    /// container is parsed here; frames are decoded when asked for. Limits in `options` (pixels,
    /// frames, and `checkAnimationPixels` with the full canvas size) are checked before anything is
    /// allocated.
    func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)?
}

extension AnimatedImageCoder {
    /// For an animated coder's `decode`: a lazy animation when the data holds more than one frame
    /// (and the options allow it), else nil so the coder decodes a still image. The provider's
    /// `warnings` go on the image.
    public func decodeAnimation(_ data: Data, options: ImageDecodeOptions, orientation: ImageOrientation = .up) throws -> Image? {
        guard !options.firstFrameOnly,
            let provider = try animatedImageProvider(for: data, options: options),
            provider.frameCount > 1
        else { return nil }
        try options.checkFrameLimit(provider.frameCount)
        // Providers check the budget with the full canvas; this floor (the size they return) holds
        // for one that does not.
        try options.checkAnimationPixels(frameCount: provider.frameCount, canvas: provider.canvasSize)
        let animation = try AnimatedImage(provider: provider)
        return Image(animation: animation, orientation: orientation, scale: options.scaleFactor, metadata: ImageMetadata(decodeOptions: options, warnings: provider.warnings))
    }
}
