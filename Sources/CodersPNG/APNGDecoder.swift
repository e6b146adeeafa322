import Foundation
import PipelineCore

/// One-shot decoding of any PNG file: an animated one (acTL before the image data) as a lazy
/// animation, anything else, or an animation that cannot be followed, as its still image.
enum APNGDecoder {
    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try PNGDecoder.preflight(data, options: options)
        let reading = try reading(data, options: options)
        guard case .animated(let index) = reading else {
            var image = try PNGDecoder.decode(data, options: options)
            // Why an animation was ignored, if one was.
            if case .still(let warning) = reading { image.metadata.addWarning(warning) }
            return image
        }
        if usesStillDecoder(index, options: options) {
            var image = try PNGDecoder.decode(data, options: options)
            for warning in index.warnings { image.metadata.addWarning(warning) }
            // Frames a first-frame decode skipped are part of the file the image does not carry.
            if options.firstFrameOnly { image.metadata.hasUnreadMetadata = true }
            return image
        }
        let provider = try APNGAnimationProvider(data: data, index: index, options: options)
        let chunks = PNGMetadataChunks(data).metadata(in: data, options: options)
        let (profile, profileWarning) = try colorProfile(data, options: options)
        let metadata = ImageMetadata(
            decodeOptions: options, warnings: index.warnings + [profileWarning].compactMap { $0 } + chunks.warnings,
            colorProfile: profile, exif: chunks.exif, xmp: chunks.xmp,
            hasUnreadMetadata: chunks.hasUnread || options.firstFrameOnly, colorModel: PNGHeader(data)?.colorModel)
        let orientation = chunks.orientation ?? .up
        if provider.frameCount > 1 && !options.firstFrameOnly {
            return Image(animation: try AnimatedImage(provider: provider), orientation: orientation, scale: options.scaleFactor, metadata: metadata)
        }
        return Image(try provider.frame(at: 0), format: .png, orientation: orientation, scale: options.scaleFactor, metadata: metadata)
    }

    /// The animation in `data` when it has more than one frame; nil for stills.
    static func animationProvider(_ data: Data, options: ImageDecodeOptions) throws -> APNGAnimationProvider? {
        try PNGDecoder.preflight(data, options: options)
        guard case .animated(let index) = try reading(data, options: options), index.frames.count > 1 else { return nil }
        return try APNGAnimationProvider(data: data, index: index, options: options)
    }

    /// The index of an animation decoded as one (not a still, not frame 0 alone); nil otherwise
    /// or when the chunks are unreadable (the decode then says why).
    static func animationIndex(_ data: Data, options: ImageDecodeOptions) -> APNGIndex? {
        guard case .animated(let index)? = try? reading(data, options: options), !usesStillDecoder(index, options: options) else { return nil }
        return index
    }

    /// Frame 0 alone is asked for and it is the IDAT image, drawn on a clear canvas: the still
    /// decoder gives the same pixels, with its shrink-on-load thumbnails.
    static func usesStillDecoder(_ index: APNGIndex, options: ImageDecodeOptions) -> Bool {
        index.defaultImageIsFirstFrame && (index.frames.count == 1 || options.firstFrameOnly)
    }

    static func reading(_ data: Data, options: ImageDecodeOptions) throws -> APNGIndex.Reading {
        try APNGIndex.read(data, maxFrames: options.maxFrames, firstFrameOnly: options.firstFrameOnly)
    }

    /// The colour chunks before the image data, as the still decoder reads them.
    private static func colorProfile(_ data: Data, options: ImageDecodeOptions) throws -> (ImageColorProfile?, ImageDecodeWarning?) {
        try data.withUnsafeBytes { bytes in
            let reader = try PNGReader(bytes, maxChunkBytes: PNGDecoder.maxChunkBytes(options))
            _ = try reader.readHeader()
            return reader.colorProfile(options: options)
        }
    }
}
