import CHEIF
import Foundation
import PipelineCore

/// The primary image's ICC profile (`colr` of type `prof`/`rICC`), EXIF and XMP. Orientation is
/// not read: libheif applies `irot`/`imir` as it decodes, so images come out upright, and the
/// EXIF orientation inside a HEIF is informative only.
struct HEIFMetadata {
    var colorProfile: ImageColorProfile?
    var exif: Data?
    var xmp: Data?
    var warnings: [ImageDecodeWarning] = []

    /// Blocks over `options`' size limits are never copied out of libheif.
    init(_ handle: OpaquePointer, options: ImageDecodeOptions) {
        let profileSize = ip_heif_image_handle_get_raw_color_profile_size(handle)
        if let warning = options.colorProfileWarning(bytes: profileSize, format: "HEIF") {
            warnings.append(warning)
        } else if profileSize > 0 {
            var profile = Data(count: profileSize)
            let error = profile.withUnsafeMutableBytes { ip_heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if error.code == heif_error_Ok { colorProfile = .icc(profile) }
        }
        for id in Self.blockIDs(handle) {
            let type = ip_heif_image_handle_get_metadata_type(handle, id).map { String(cString: $0) } ?? ""
            let content = ip_heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } ?? ""
            let isExif = type == "Exif", isXMP = type == "mime" && content == "application/rdf+xml"
            guard (isExif && exif == nil) || (isXMP && xmp == nil) else { continue }
            let size = ip_heif_image_handle_get_metadata_size(handle, id)
            if let warning = options.metadataWarning(bytes: size, kind: isExif ? "EXIF" : "XMP", format: "HEIF") {
                warnings.append(warning)
                continue
            }
            guard size > 0 else { continue }
            var block = Data(count: size)
            let error = block.withUnsafeMutableBytes { ip_heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            guard error.code == heif_error_Ok else { continue }
            if isExif { exif = ExifEditor.tiffData(fromHEIFItem: block) } else { xmp = block }
        }
    }

    private static func blockIDs(_ handle: OpaquePointer) -> [heif_item_id] {
        let count = Int(ip_heif_image_handle_get_number_of_metadata_blocks(handle, nil))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(ip_heif_image_handle_get_list_of_metadata_block_IDs(handle, nil, &ids, Int32(count)))
        return Array(ids.prefix(listed))
    }
}
