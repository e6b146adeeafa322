/// Turns one image into another: resize, crop, round, tint… (SDWebImage's `SDImageTransformer`).
///
/// The `key` must describe the output completely: it is appended to the cache key, so two
/// transformers with equal keys must produce equal images from equal input.
public protocol ImageTransformer: Sendable {
    /// Describes the transformation and all its parameters, e.g.
    /// `SDImageResizingTransformer({100.000000,100.000000},1)`.
    var key: String { get }
    /// Whether the output keeps the input's metadata (format, scale, decode options). Default true.
    var preservesImageMetadata: Bool { get }
    /// The transformed image. Never mutates `image` (images are values); throws when it cannot.
    func transform(_ image: Image) throws -> Image
}

extension ImageTransformer {
    public var preservesImageMetadata: Bool { true }

    /// Transforms as the pipeline does: the output is marked transformed and, when
    /// `preservesImageMetadata`, keeps the input's format, scale and decode options (SDWebImage's
    /// `SDImageCopyAssociatedObject` step). Decode warnings, the colour profile and EXIF/XMP are always
    /// kept: the output's pixels come from the same decode, in the same colours.
    public func apply(to image: Image) throws -> Image {
        var output = try transform(image)
        if preservesImageMetadata {
            output.format = image.format
            output.scale = image.scale
            output.metadata.decodeOptions = image.metadata.decodeOptions
        }
        output.metadata.isTransformed = true
        output.metadata.warnings = image.metadata.warnings
        output.metadata.colorProfile = image.metadata.colorProfile
        output.metadata.exif = image.metadata.exif
        // Pixel transformers turn the pixels upright first: the EXIF must say so too.
        if output.orientation == .up, image.orientation != .up {
            output.metadata.exif = output.metadata.exif.map(ExifEditor.settingOrientationUp)
        }
        output.metadata.xmp = image.metadata.xmp
        output.metadata.removedMetadata = image.metadata.removedMetadata
        output.metadata.hasUnreadMetadata = image.metadata.hasUnreadMetadata
        return output
    }
}
