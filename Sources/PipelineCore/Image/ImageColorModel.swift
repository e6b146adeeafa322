/// The colour model a file stores its samples in, as its header says: what the decoded
/// `PixelFormat` was converted from (a CMYK JPEG decodes to `rgb8`). Open-ended, so a coder
/// plugin can name its format's own models.
public struct ImageColorModel: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let gray = ImageColorModel(rawValue: "gray")
    public static let rgb = ImageColorModel(rawValue: "rgb")
    /// JPEG's usual luma and chroma.
    public static let ycbcr = ImageColorModel(rawValue: "ycbcr")
    public static let cmyk = ImageColorModel(rawValue: "cmyk")
    /// Adobe's CMYK with the CMY part as YCbCr.
    public static let ycck = ImageColorModel(rawValue: "ycck")
    /// Indices into a colour table (PNG palette, GIF).
    public static let palette = ImageColorModel(rawValue: "palette")
}
