import Foundation
import PipelineCore

/// A WebP file's EXIF and XMP chunks ("EXIF", "XMP "), which the container specification puts
/// after the image data, and the orientation the EXIF records (libvips and browsers honour it).
struct WebPMetadata {
    var exif: Data?
    var xmp: Data?
    var orientation: ImageOrientation = .up
    var warnings: [ImageDecodeWarning] = []
    /// The file holds metadata not in `exif` or `xmp`: chunks not read, or left out for their size.
    var hasUnreadMetadata: Bool

    /// What `options` keep, with warnings for what is over `maxMetadataBytes`. Some writers put
    /// JPEG's `Exif\0\0` before the TIFF structure; it is dropped.
    init(_ data: Data, options: ImageDecodeOptions) {
        hasUnreadMetadata = WebPChunks.holdsUnreadMetadata(in: data)
        if let range = WebPChunks.range(of: "EXIF", in: data, beforeImageData: false) {
            if let editor = ExifEditor(data[range]) {
                orientation = editor.orientation ?? .up
                let (kept, warning) = options.acceptingMetadata(editor.tiffData, kind: "EXIF", format: "WebP")
                exif = kept
                warnings += [warning].compactMap { $0 }
            }
            hasUnreadMetadata = hasUnreadMetadata || exif == nil
        }
        if let range = WebPChunks.range(of: "XMP ", in: data, beforeImageData: false) {
            let (kept, warning) = options.acceptingMetadata(Data(data[range]), kind: "XMP", format: "WebP")
            xmp = kept
            warnings += [warning].compactMap { $0 }
            hasUnreadMetadata = hasUnreadMetadata || xmp == nil
        }
    }

    /// The chunks that carry `image`'s EXIF and XMP, for `WebPChunks.setting`.
    static func chunks(for image: Image) -> [(fourCC: String, payload: Data)] {
        let profile = image.metadata.colorProfile?.iccData(describing: .rgb8)  // WebP pixels are always colour.
        return [profile.map { ("ICCP", $0) }, image.metadata.exif.map { ("EXIF", $0) }, image.metadata.xmp.map { ("XMP ", $0) }]
            .compactMap { $0 }
    }
}
