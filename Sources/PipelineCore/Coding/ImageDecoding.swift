import Foundation

/// The decode step shared by caches and loaders (SDWebImage's `SDImageCacheDecodeImageData` and
/// `SDImageLoaderDecodeImageData`): pick the coder, decode, refuse empty results, manage colour as
/// `options.colorHandling` says, strip or keep EXIF and XMP as `options.metadataHandling` says, and record the options used so `isThumbnail` can be told later.
public enum ImageDecoding {
    /// Decodes `data` with the context's coder if it names one (used as is, without `canDecode`,
    /// as SDWebImage does), else with `coders`; then converts it to sRGB through `colorConverters`
    /// unless the options keep the source profile.
    public static func decode(
        _ data: Data, options: ImageDecodeOptions, context: ImageContext = ImageContext(),
        coders: ImageCodersManager = .shared, colorConverters: ImageColorConvertersManager = .shared
    ) throws -> Image {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        let coder: any ImageCoder = context[.imageCoder] ?? coders
        var image = try coder.decode(data, options: options)
        guard !image.pixelSize.isEmpty else { throw ImagePipeError.badImageData(reason: "image has 0 pixels") }
        if options.firstFrameOnly { image = image.firstFrameOnly() }
        image = colorConverters.apply(options.colorHandling, to: image)
        image = options.metadataHandling.apply(to: image)
        image.metadata.decodeOptions = options
        return image
    }
}

extension ImageDecoding {
    /// `decode`, run by `run` (the caller's executor for CPU work) while holding the decode's
    /// estimated memory from `coders.decodeMemoryBudget`. The estimate is read from the header
    /// first; waiting for room in the budget holds no executor slot.
    ///
    /// - Throws: as `decode`; `limitExceeded(.decodeMemoryBudget)` when this decode alone is over
    ///   the budget; `cancelled` when the task is cancelled while waiting.
    public static func decode(
        _ data: Data, options: ImageDecodeOptions, context: ImageContext = ImageContext(),
        coders: ImageCodersManager = .shared, colorConverters: ImageColorConvertersManager = .shared,
        on run: (_ work: @escaping @Sendable () throws -> Image) async throws -> Image
    ) async throws -> Image {
        let coder: any ImageCoder = context[.imageCoder] ?? coders
        let bytes = data.isEmpty ? 0 : coder.decodeEstimate(for: data, options: options)?.bytes ?? 0
        return try await coders.decodeMemoryBudget.withReservation(of: bytes) {
            try await run { try decode(data, options: options, context: context, coders: coders, colorConverters: colorConverters) }
        }
    }
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
