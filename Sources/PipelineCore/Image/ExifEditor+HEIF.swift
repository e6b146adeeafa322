import Foundation

extension ExifEditor {
    /// The TIFF structure of an EXIF item in a HEIF or AVIF file. The item starts with a 4-byte
    /// offset to the TIFF header (ISO/IEC 23008-12 A.2.1); some writers leave it out, so a payload
    /// that already starts like TIFF (or with JPEG's `Exif\0\0`) is taken as it is.
    package static func tiffData(fromHEIFItem item: Data) -> Data? {
        if let editor = ExifEditor(item) { return editor.tiffData }
        guard item.count > 4 else { return nil }
        let start = item.startIndex
        let offset = item[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard offset <= item.count - 4 else { return nil }
        return ExifEditor(item[(start + 4 + offset)...])?.tiffData
    }
}
