import CAVIF
import Foundation
import PipelineCore

/// What an AVIF carries beside its pixels, read after parsing: the ICC profile (`colr` of type
/// `prof`/`rICC`), EXIF and XMP items, the orientation `irot`/`imir` give, and a warning when a
/// `clap` is invalid (the image is then shown uncropped).
struct AVIFMetadata {
    var colorProfile: ImageColorProfile?
    var exif: Data?
    var xmp: Data?
    var orientation: ImageOrientation
    var warnings: [ImageDecodeWarning] = []

    /// Blocks over `options`' size limits are left in libavif's buffers, never copied.
    init(_ image: avifImage, cleanAperture: AVIFCleanAperture.Outcome, options: ImageDecodeOptions) {
        orientation = AVIFOrientation.orientation(of: image)
        if case .invalid(let reason) = cleanAperture {
            warnings.append(ImageDecodeWarning(.corruptData, message: "AVIF: clean aperture (clap) ignored: \(reason)"))
        }
        if let warning = options.colorProfileWarning(bytes: image.icc.size, format: "AVIF") {
            warnings.append(warning)
        } else if let icc = Self.bytes(image.icc) {
            colorProfile = .icc(icc)
        }
        if let warning = options.metadataWarning(bytes: image.exif.size, kind: "EXIF", format: "AVIF") {
            warnings.append(warning)
        } else if let raw = Self.bytes(image.exif) {
            exif = ExifEditor.tiffData(fromHEIFItem: raw)
        }
        if let warning = options.metadataWarning(bytes: image.xmp.size, kind: "XMP", format: "AVIF") {
            warnings.append(warning)
        } else {
            xmp = Self.bytes(image.xmp)
        }
    }

    private static func bytes(_ data: avifRWData) -> Data? {
        guard let pointer = data.data, data.size > 0 else { return nil }
        return Data(bytes: pointer, count: data.size)
    }
}
