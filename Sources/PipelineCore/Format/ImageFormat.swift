/// An image file format: an extensible identifier plus the MIME type and file extensions that go
/// with it.
///
/// Formats compare by `identifier` alone. Plugins add formats the core does not know:
/// ```swift
/// extension ImageFormat { static let pam = ImageFormat(identifier: "pam", mimeType: "image/x-portable-arbitrarymap", fileExtensions: ["pam"]) }
/// ```
public struct ImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// A short lowercase name, unique among formats: `"png"`, `"jpeg"`, … It is what `--json`
    /// output prints.
    public let identifier: String
    public let mimeType: String
    /// Lowercase, without the dot; the first one is what encoders write.
    public let fileExtensions: [String]

    public init(identifier: String, mimeType: String, fileExtensions: [String]) {
        self.identifier = identifier
        self.mimeType = mimeType
        self.fileExtensions = fileExtensions
    }

    public var preferredFileExtension: String? { fileExtensions.first }
    public var description: String { identifier }

    public static func == (lhs: ImageFormat, rhs: ImageFormat) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// No known format (SDWebImage's `SDImageFormatUndefined`).
    public static let undefined = ImageFormat(identifier: "undefined", mimeType: "application/octet-stream", fileExtensions: [])
    public static let jpeg = ImageFormat(identifier: "jpeg", mimeType: "image/jpeg", fileExtensions: ["jpg", "jpeg", "jpe", "jfif"])
    public static let png = ImageFormat(identifier: "png", mimeType: "image/png", fileExtensions: ["png", "apng"])
    public static let gif = ImageFormat(identifier: "gif", mimeType: "image/gif", fileExtensions: ["gif"])
    public static let tiff = ImageFormat(identifier: "tiff", mimeType: "image/tiff", fileExtensions: ["tiff", "tif"])
    public static let webp = ImageFormat(identifier: "webp", mimeType: "image/webp", fileExtensions: ["webp"])
    public static let heic = ImageFormat(identifier: "heic", mimeType: "image/heic", fileExtensions: ["heic"])
    public static let heif = ImageFormat(identifier: "heif", mimeType: "image/heif", fileExtensions: ["heif"])
    public static let pdf = ImageFormat(identifier: "pdf", mimeType: "application/pdf", fileExtensions: ["pdf"])
    public static let svg = ImageFormat(identifier: "svg", mimeType: "image/svg+xml", fileExtensions: ["svg"])
    public static let bmp = ImageFormat(identifier: "bmp", mimeType: "image/bmp", fileExtensions: ["bmp"])
    /// Camera raw: never sniffed (SDWebImage knows it only from a type hint).
    public static let raw = ImageFormat(identifier: "raw", mimeType: "image/x-raw", fileExtensions: ["raw", "dng", "nef", "cr2", "arw"])
    public static let avif = ImageFormat(identifier: "avif", mimeType: "image/avif", fileExtensions: ["avif"])
    public static let jxl = ImageFormat(identifier: "jxl", mimeType: "image/jxl", fileExtensions: ["jxl"])

    /// Every format the core knows by name, for look-ups by extension or MIME type.
    public static let known: [ImageFormat] = [.jpeg, .png, .gif, .tiff, .webp, .heic, .heif, .pdf, .svg, .bmp, .raw, .avif, .jxl]

    /// The known format with this identifier (`"png"`), file extension (`"JPG"`, `".webp"`) or MIME
    /// type (`"image/gif"`), case-insensitively.
    public static func named(_ name: String) -> ImageFormat? {
        var lowered = name.lowercased()
        if lowered.hasPrefix(".") { lowered.removeFirst() }
        return known.first { $0.identifier == lowered || $0.mimeType == lowered || $0.fileExtensions.contains(lowered) }
    }
}
