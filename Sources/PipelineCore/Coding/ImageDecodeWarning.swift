/// A problem a decoder recovered from: it still made an image, but perhaps not the one the file's
/// author meant (a truncated file's missing rows, concealed corrupt data, a dropped damaged chunk).
///
/// Coders attach these to `ImageMetadata.warnings` of the image they return, so the warnings travel
/// with the pixels they describe: through transformers, and into the memory cache (a hit reports
/// them again). Callers that must not accept such images refuse any image with warnings, as
/// libvips' `fail_on` and the CLI's `--fail-on-warning` do.
public struct ImageDecodeWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it was. Open like `ImagePipeError.Limit`: a plugin declares its own
    /// kinds in an extension when none of these fits.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        package let name: String

        public init(name: String) { self.name = name }

        public var description: String { name }

        /// The file ended early; what is missing is filled in (libjpeg: grey; ImagePipe's other
        /// coders: zero bytes, black or transparent) or left out (a GIF's unfinished frame).
        public static let truncated = Kind(name: "truncated")
        /// Damaged data the decoder concealed, skipped or dropped (corrupt entropy data, a bad CRC
        /// in an ancillary PNG chunk).
        public static let corruptData = Kind(name: "corruptData")
        /// The file's colour profile could not be used (broken, over
        /// `ImageDecodeOptions.maxColorProfileBytes`, or not for these pixels): the pixels are
        /// as stored, so colours may be off.
        public static let colorProfileIgnored = Kind(name: "colorProfileIgnored")
        /// An EXIF block or XMP packet was not kept (over `ImageDecodeOptions.maxMetadataBytes`).
        public static let metadataIgnored = Kind(name: "metadataIgnored")
    }

    public let kind: Kind
    /// One line saying what happened, starting with the format, e.g. "JPEG: Premature end of JPEG
    /// file". Library text may be included as is; printers escape control characters.
    public let message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The most warnings one decode keeps: a damaged file can make a library complain once per
    /// block, and the warnings live as long as the cached image.
    public static let maxPerImage = 8
}
