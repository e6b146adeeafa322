import Foundation
import PipelineCore

/// What ImagePipe reads from a JPEG's markers itself, before libjpeg: the frame header, to refuse
/// unsupported processes and hostile sizes before any decoder state exists, EXIF and XMP from
/// APP1, which libjpeg does not interpret, and the ICC profile's APP2 segments. Stops at the
/// first SOS.
struct JPEGHeaderScan {
    struct Frame: Equatable {
        /// A component's sampling factors, 1-4 each.
        struct Sampling: Equatable {
            let horizontal: Int
            let vertical: Int
        }

        /// The SOF marker's second byte: 0xC0 baseline, 0xC2 progressive, 0xC9 arithmetic...
        let marker: UInt8
        let precision: Int
        let size: ImageSize
        /// One entry per component, in the frame header's order (empty when it is cut short).
        var components: [Sampling] = []

        /// SOF3, SOF7, SOF11 and SOF15 are lossless processes.
        var isLossless: Bool { [0xC3, 0xC7, 0xCB, 0xCF].contains(marker) }
        /// SOF2, SOF6, SOF10 and SOF14 are progressive: libjpeg buffers every coefficient.
        var isProgressive: Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) }
    }

    private(set) var frame: Frame?
    /// The first APP1 EXIF segment's TIFF structure (after `Exif\0\0`).
    private(set) var exif: ArraySlice<UInt8>?
    /// The first APP1 XMP segment's packet (after its namespace header).
    private(set) var xmp: ArraySlice<UInt8>?
    var exifOrientation: Int? { exif.flatMap { ExifEditor.rawOrientation(in: $0) } }
    static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// The APP2 segments of an embedded ICC profile, in file order.
    private(set) var iccSegments = JPEGICCSegments()
    /// True when a segment before the image data holds metadata none of the above reads (IPTC in
    /// APP13, a comment, a second EXIF or XMP segment, extended XMP, MPF, a JFIF thumbnail…), or
    /// the scan stopped before the image data and cannot tell.
    var hasUnreadMetadata: Bool { foundUnreadMetadata || !reachedImageData }
    private var foundUnreadMetadata = false
    private var reachedImageData: Bool { imageDataOffset != nil }
    /// Where the first SOS marker starts, counted from the data's start.
    private(set) var imageDataOffset: Int?

    /// Markers that carry a frame header (every SOFn but DHT 0xC4, JPG 0xC8 and DAC 0xCC).
    private static let frameMarkers: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]

    init(_ data: Data) {
        let bytes = [UInt8](data.prefix(Self.scanLimit(data)))
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        var offset = 2
        while offset < bytes.count - 1 {
            guard bytes[offset] == 0xFF else { return }
            // Any number of 0xFF fill bytes may precede a marker code.
            var codeOffset = offset + 1
            while codeOffset < bytes.count, bytes[codeOffset] == 0xFF { codeOffset += 1 }
            guard codeOffset < bytes.count else { return }
            let marker = bytes[codeOffset]
            offset = codeOffset + 1
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { continue }
            if marker == 0xDA { imageDataOffset = offset - 2 }
            if marker == 0xD9 || marker == 0xDA { return }
            guard offset + 2 <= bytes.count else { return }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2, offset + length <= bytes.count else { return }
            let segment = bytes[(offset + 2)..<(offset + length)]
            if Self.frameMarkers.contains(marker), frame == nil, segment.count >= 5 {
                let s = segment.startIndex
                var found = Frame(
                    marker: marker, precision: Int(segment[s]),
                    size: ImageSize(
                        width: Int(segment[s + 3]) << 8 | Int(segment[s + 4]),
                        height: Int(segment[s + 1]) << 8 | Int(segment[s + 2])))
                // Nf, then three bytes a component: id, sampling factors (H << 4 | V), table.
                if segment.count >= 6 {
                    let count = Int(segment[s + 5])
                    if segment.count >= 6 + 3 * count {
                        found.components = (0..<count).map { index in
                            let factors = segment[s + 7 + 3 * index]
                            return Frame.Sampling(horizontal: Int(factors >> 4), vertical: Int(factors & 0x0F))
                        }
                    }
                }
                frame = found
            } else if marker == 0xE1, exif == nil, segment.starts(with: ExifEditor.exifHeader) {
                exif = segment.dropFirst(ExifEditor.exifHeader.count)
            } else if marker == 0xE1, xmp == nil, segment.starts(with: Self.xmpHeader) {
                xmp = segment.dropFirst(Self.xmpHeader.count)
            } else if marker == 0xE2, JPEGICCSegments.isICC(segment) {
                iccSegments.add(segment)
            } else if Self.holdsMetadata(marker: marker, segment: segment) {
                foundUnreadMetadata = true
            }
            offset += length
        }
    }

    /// Whether a segment not read above carries metadata: every APPn and comment, except a JFIF
    /// APP0 without a thumbnail and Adobe's APP14 (its colour transform is decoding information).
    private static func holdsMetadata(marker: UInt8, segment: ArraySlice<UInt8>) -> Bool {
        switch marker {
        case 0xFE:
            return true
        case 0xE0:
            // "JFIF\0", version, units, X and Y density, then the thumbnail's width and height.
            let s = segment.startIndex
            let jfif = segment.starts(with: Array("JFIF".utf8) + [0]) && segment.count >= 14
            return !(jfif && (segment[s + 12] == 0 || segment[s + 13] == 0))
        case 0xEE:
            return !segment.starts(with: Array("Adobe".utf8))
        case 0xE1...0xEF:
            return true
        default:
            return false
        }
    }

    /// Whether an APPn or comment segment follows the first scan (progressive files may put them
    /// between scans). Entropy-coded data escapes every 0xFF as FF 00 or a restart marker, so an
    /// FF followed by E0–EF or FE can only be such a segment.
    static func holdsSegmentsAfterImageData(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        guard let base = bytes.baseAddress, start >= 0, start < bytes.count else { return false }
        var offset = start
        while offset < bytes.count - 1, let found = memchr(base + offset, 0xFF, bytes.count - 1 - offset) {
            let index = base.distance(to: UnsafeRawPointer(found))
            let next = bytes[index + 1]
            if next == 0xFE || (0xE0...0xEF).contains(next) { return true }
            offset = index + 1
        }
        return false
    }

    /// Headers live at the start; a few hundred KB covers any real APP segments without copying a
    /// whole photo.
    private static func scanLimit(_ data: Data) -> Int { min(data.count, 1 << 20) }
}
