/// Converts pixels described by a colour profile into sRGB: the arithmetic behind colour
/// management, which a plugin brings (the lcms2 one is `ColorManagementLCMS`). The policy of
/// when to convert lives in the core (`ImageColorHandling`, applied by the decode step).
///
/// Converters are called from many tasks at once.
public protocol ImageColorConverter: Sendable {
    /// Whether this converter reads this kind of profile. Cheap: it may not parse the profile.
    func canConvert(from profile: ImageColorProfile) -> Bool

    /// `pixels` (described by `profile`) as sRGB, in the same pixel format; alpha is kept as is.
    /// Gray stays gray, with sRGB's tone curve.
    ///
    /// - Throws: `ImageColorConversionError` when the profile is broken or does not fit the pixels
    ///   (a CMYK profile on RGB pixels). The decode step then keeps the pixels as decoded and adds
    ///   a warning with the error's reason.
    func convertToSRGB(_ pixels: PixelBuffer, from profile: ImageColorProfile, intent: ImageRenderingIntent) throws -> PixelBuffer

    /// The profile's own name (an ICC profile's description tag, e.g. "Display P3"), or nil when it
    /// has none or cannot be read.
    func profileDescription(_ profile: ImageColorProfile) -> String?

    /// A converter of CMYK rows described by the CMYK `profile` into sRGB, for decoders whose
    /// library hands out CMYK (JPEG), which convert a strip at a time so the CMYK image is never
    /// held whole. `inverted` is Adobe's form, where stored 255 means no ink. Nil when this
    /// converter does not convert CMYK (the default).
    ///
    /// - Throws: `ImageColorConversionError` when the profile is broken or is not CMYK.
    func cmykConverter(from profile: ImageColorProfile, inverted: Bool, intent: ImageRenderingIntent) throws -> (any CMYKRowConverter)?
}

extension ImageColorConverter {
    public func cmykConverter(from profile: ImageColorProfile, inverted: Bool, intent: ImageRenderingIntent) throws -> (any CMYKRowConverter)? {
        nil
    }
}

/// Turns CMYK pixels (4 bytes each) into sRGB ones (3 bytes each) through one profile. Used from
/// many tasks at once.
public protocol CMYKRowConverter: Sendable {
    /// Converts `cmyk.count / 4` pixels into the start of `rgb`, which holds at least 3 bytes for each.
    func convert(_ cmyk: UnsafeBufferPointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>)
}

/// How colours outside sRGB's gamut are brought into it (ICC rendering intents).
public enum ImageRenderingIntent: String, Hashable, Sendable, CaseIterable {
    /// Compresses the whole gamut smoothly, keeping gradations: the default of libvips and
    /// imgproxy for photos.
    case perceptual
    /// Keeps in-gamut colours exact and clips the rest: for logos and brand colours.
    case relativeColorimetric
}

/// Why a converter could not use a profile; `reason` goes into the image's warning.
public struct ImageColorConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}
