import Foundation
import PipelineCore

/// The EXIF and XMP of a JPEG XL file, read from its container's `Exif` and `xml ` boxes (a bare
/// codestream has none). Only box headers are read until a wanted box is found, so a large file
/// is not copied.
///
/// Brotli-compressed boxes (`brob`) and JUMBF (`jumb`) are not read; they set `hasUnreadMetadata`.
/// The orientation is the codestream's (`JXLImageInfo`): the format says it wins over EXIF's.
struct JXLMetadata {
    var exif: Data?
    var xmp: Data?
    var warnings: [ImageDecodeWarning] = []
    var hasUnreadMetadata = false

    /// `JXL ` signature box, as the container starts.
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    init(_ data: Data, options: ImageDecodeOptions) {
        guard data.starts(with: Self.containerSignature) else { return }
        for (type, payload) in Self.boxes(in: data) {
            switch type {
            case "Exif":
                // A 4-byte offset from the payload's start to the TIFF header, then the block.
                guard payload.count >= 4 else { continue }
                let offset = data[payload.lowerBound..<payload.lowerBound + 4].reduce(0) { $0 << 8 | Int($1) }
                guard offset <= payload.count - 4 else {
                    hasUnreadMetadata = true
                    continue
                }
                let tiff = payload.lowerBound + 4 + offset..<payload.upperBound
                guard exif == nil, let editor = ExifEditor(data[tiff]) else {
                    hasUnreadMetadata = true
                    continue
                }
                let (kept, warning) = options.acceptingMetadata(editor.tiffData, kind: "EXIF", format: "JPEG XL")
                exif = kept
                warnings += [warning].compactMap { $0 }
                hasUnreadMetadata = hasUnreadMetadata || kept == nil
            case "xml ":
                guard xmp == nil else {
                    hasUnreadMetadata = true
                    continue
                }
                if let warning = options.metadataWarning(bytes: payload.count, kind: "XMP", format: "JPEG XL") {
                    warnings.append(warning)
                    hasUnreadMetadata = true
                } else {
                    xmp = Data(data[payload])
                }
            case "brob", "jumb":
                hasUnreadMetadata = true
            default:
                continue
            }
        }
    }

    /// The top-level boxes of a container: type and payload range within `data`. Stops at the
    /// first box whose size does not fit the file, and after 4096 boxes.
    static func boxes(in data: Data) -> [(type: String, payload: Range<Int>)] {
        var boxes: [(String, Range<Int>)] = []
        var start = data.startIndex
        while boxes.count < 4096, start < data.endIndex {
            let header = [UInt8](data[start..<min(start + 16, data.endIndex)])
            guard let box = ISOBMFFBox.Header(header, at: 0, end: data.endIndex - start) else { break }
            boxes.append((box.type, start + box.length..<start + box.size))
            start += box.size
        }
        return boxes
    }
}
