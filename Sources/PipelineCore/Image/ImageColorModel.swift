/// The names coders give `ImageMetadata.colorModel`, so the built-in ones spell them alike. A
/// plugin names its format's own models as it likes.
package enum ImageColorModel {
    package static let gray = "gray"
    package static let rgb = "rgb"
    /// JPEG's usual luma and chroma.
    package static let ycbcr = "ycbcr"
    package static let cmyk = "cmyk"
    /// Adobe's CMYK with the CMY part as YCbCr.
    package static let ycck = "ycck"
    /// Indices into a colour table (PNG palette, GIF).
    package static let palette = "palette"
}
