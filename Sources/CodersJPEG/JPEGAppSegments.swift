import Foundation
import PipelineCore

/// Application segments the encoder adds to libjpeg's output: EXIF and XMP in APP1, an ICC profile
/// in APP2, placed after SOI and a JFIF APP0 in that order, where libjpeg's own `jpeg_write_marker`
/// calls would put them.
enum JPEGAppSegments {
    struct Segment {
        let marker: UInt8
        let payload: [UInt8]
    }

    /// Payload bytes one segment holds: 65,535 less the length field.
    static let maxPayloadBytes = 65_535 - 2

    /// The APP1 segment of an EXIF TIFF structure, or nil when it does not fit one segment.
    static func exif(_ tiff: Data) -> Segment? {
        let payload = ExifEditor.exifHeader + tiff
        return payload.count <= maxPayloadBytes ? Segment(marker: 0xE1, payload: payload) : nil
    }

    /// The APP1 segment of an XMP packet, or nil when it does not fit one segment (extended XMP,
    /// split over several, is not written).
    static func xmp(_ packet: Data) -> Segment? {
        let payload = JPEGHeaderScan.xmpHeader + packet
        return payload.count <= maxPayloadBytes ? Segment(marker: 0xE1, payload: payload) : nil
    }

    /// What `image` asks to be written beside its pixels: its EXIF, XMP and ICC profile, each when
    /// it fits (the profile only when it describes the pixels).
    static func segments(for image: Image) -> [Segment] {
        let profile = image.metadata.colorProfile?.iccData(describing: image.pixelFormat.isGray ? .gray8 : .rgb8)
        return [image.metadata.exif.flatMap(exif), image.metadata.xmp.flatMap(xmp)].compactMap { $0 }
            + (profile.flatMap(JPEGICCSegments.segments) ?? [])
    }

    /// `jpeg` with `segments` after SOI and a JFIF APP0; nil when it is too short to be a JPEG.
    static func inserting(_ segments: [Segment], in jpeg: Data) -> Data? {
        guard !segments.isEmpty else { return jpeg }
        guard jpeg.count >= 4 else { return nil }
        var insertAt = jpeg.startIndex + 2
        if jpeg[insertAt] == 0xFF, jpeg[insertAt + 1] == 0xE0, jpeg.count >= 6 {
            insertAt += 2 + (Int(jpeg[insertAt + 2]) << 8 | Int(jpeg[insertAt + 3]))
        }
        guard insertAt <= jpeg.endIndex else { return nil }
        var out = Data(capacity: jpeg.count + segments.reduce(0) { $0 + $1.payload.count + 4 })
        out.append(jpeg[..<insertAt])
        for segment in segments {
            let length = 2 + segment.payload.count
            out.append(contentsOf: [0xFF, segment.marker, UInt8(length >> 8), UInt8(length & 0xFF)])
            out.append(contentsOf: segment.payload)
        }
        out.append(jpeg[insertAt...])
        return out
    }
}
