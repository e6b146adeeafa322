import Foundation

extension ImageFormat {
    /// The format the bytes say they are, from their first and last bytes only (never from a file
    /// name or a MIME type, which untrusted sources get wrong), by the signatures registered in
    /// `ImageFormatRegistry.shared`; `.undefined` when none matches.
    public static func detect(in data: some DataProtocol) -> ImageFormat {
        ImageFormatRegistry.shared.detect(in: data)
    }

    /// The registered format with this identifier (`"png"`), other name, file extension (`"JPG"`,
    /// `".webp"`) or MIME type (`"image/gif"`), case-insensitively, in
    /// `ImageFormatRegistry.shared`. An identifier wins over the other spellings.
    public static func named(_ name: String) -> ImageFormat? {
        ImageFormatRegistry.shared.format(named: name)
    }

    /// Every format registered in `ImageFormatRegistry.shared`, built-ins first.
    package static var known: [ImageFormat] { ImageFormatRegistry.shared.formats }
}
