import Foundation

/// The decode step shared by caches and loaders (SDWebImage's `SDImageCacheDecodeImageData` and
/// `SDImageLoaderDecodeImageData`): pick the coder, decode, refuse empty results, manage colour as
/// `options.colorHandling` says, strip or keep EXIF and XMP as `options.metadataHandling` says,
/// record the options used so `isThumbnail` can be told later, and preload an animation's frames
/// when `options.preloadAllFrames` asks.
extension ImageCodersManager {
    /// Decodes `data` with the context's coder if it names one (used as is, without `canDecode`,
    /// as SDWebImage does), else with these coders; then converts it to sRGB through
    /// `colorConverters` unless the options keep the source profile.
    package func decodeImage(
        _ data: Data, options: ImageDecodeOptions, context: ImageContext = ImageContext(),
        colorConverters: ImageColorConvertersManager = .shared
    ) throws -> Image {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        let coder: any ImageCoder = context[.imageCoder] ?? self
        var image = try coder.decode(data, options: options)
        guard !image.pixelSize.isEmpty else { throw ImagePipeError.badImageData(reason: "image has 0 pixels") }
        if options.firstFrameOnly { image = image.firstFrameOnly() }
        image = colorConverters.apply(options.colorHandling, to: image)
        image = options.metadataHandling.apply(to: image)
        image.metadata.decodeOptions = options
        // A frame that fails here fails again, with its error, when it is asked for.
        if options.preloadAllFrames, let animation = image.animation { try? animation.preloadAllFrames() }
        return image
    }

    /// `decodeImage`, run by `run` (the caller's executor for CPU work, which may go on with the
    /// image: its result is `run`'s) while holding the decode's estimated memory from
    /// `decodeMemoryBudget`. The estimate is read from the header first; waiting for room in the
    /// budget holds no executor slot.
    ///
    /// - Throws: as `decodeImage`; `limitExceeded(.decodeMemoryBudget)` when this decode alone is
    ///   over the budget; `cancelled` when the task is cancelled while waiting.
    package func decodeImage<Output>(
        _ data: Data, options: ImageDecodeOptions, context: ImageContext = ImageContext(),
        colorConverters: ImageColorConvertersManager = .shared,
        on run: (_ work: @escaping @Sendable () throws -> Image) async throws -> Output
    ) async throws -> Output {
        let coder: any ImageCoder = context[.imageCoder] ?? self
        let bytes = data.isEmpty ? 0 : coder.decodeEstimate(for: data, options: options)?.bytes ?? 0
        return try await decodeMemoryBudget.withReservation(of: bytes) {
            try await run { try self.decodeImage(data, options: options, context: context, colorConverters: colorConverters) }
        }
    }
}
