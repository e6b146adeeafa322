/// What the decode step does with an image's colour profile. libvips, imgproxy and sharp convert
/// to sRGB by default, since browsers and most consumers assume sRGB pixels; keeping the source
/// profile is for callers that re-embed it and let the viewer manage colour.
public enum ImageColorHandling: Hashable, Sendable {
    /// Converts the pixels to sRGB when the image has a profile other than sRGB and a registered
    /// converter reads it (the default, with `.perceptual`). The image then says `.sRGB`.
    case convertToSRGB(ImageRenderingIntent)
    /// Keeps the pixels and the profile as decoded.
    case keepSourceProfile

    @usableFromInline package static let `default` = ImageColorHandling.convertToSRGB(.perceptual)

    /// Appended to cache keys when not the default, since the pixels differ: e.g.
    /// `ColorHandling(keepSourceProfile)`.
    package var cacheKeySuffix: String? {
        switch self {
        case .convertToSRGB(.perceptual): nil
        case .convertToSRGB(let intent): "ColorHandling(\(intent.rawValue))"
        case .keepSourceProfile: "ColorHandling(keepSourceProfile)"
        }
    }
}

extension ImageColorConvertersManager {
    /// `image` as `handling` asks: converted to sRGB when it carries a profile other than sRGB and
    /// a converter here reads it, else unchanged. Runs after the decode, so a thumbnail is
    /// converted at its reduced size (libvips and imgproxy convert after shrink-on-load too).
    ///
    /// Never fails: a profile the converter refuses leaves the image as decoded, with a
    /// `.colorProfileIgnored` warning that says why. Animations are converted frame by frame as
    /// frames are decoded, the first one here.
    func apply(_ handling: ImageColorHandling, to image: Image) -> Image {
        guard case .convertToSRGB(let intent) = handling,
            let profile = image.metadata.colorProfile, !profile.isSRGB,
            let converter = converter(for: profile)
        else { return image }
        do {
            var converted: Image
            switch image.content {
            case .still(let buffer):
                converted = Image(
                    try converter.convertToSRGB(buffer, from: profile, intent: intent), format: image.format,
                    orientation: image.orientation, scale: image.scale, metadata: image.metadata)
            case .animated(let animation):
                // `mapped` converts the poster now, so a refused profile is caught here, not on a later frame.
                let frames = try animation.mapped { try converter.convertToSRGB($0, from: profile, intent: intent) }
                converted = Image(animation: frames, orientation: image.orientation, scale: image.scale, metadata: image.metadata)
                converted.format = image.format
            }
            converted.metadata.colorProfile = .sRGB
            // The file's bytes still hold the source profile and its colours.
            converted.metadata.removedMetadata = true
            return converted
        } catch {
            var kept = image
            if kept.metadata.warnings.count < ImageDecodeWarning.maxPerImage {
                kept.metadata.warnings.append(
                    ImageDecodeWarning(
                        .colorProfileIgnored, message: "\(image.format.identifier.uppercased()): colour profile not applied, pixels kept as stored: \(error)"))
            }
            return kept
        }
    }
}
