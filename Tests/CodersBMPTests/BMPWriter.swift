import Foundation

/// Writes BMPs of the layouts netpbm's ppmtobmp does not (16 and 32 bits, bit masks, RLE,
/// top-down, V4/V5 headers), so the tests can check the decoder against the pixels they chose.
enum BMPWriter {
    struct Layout {
        var headerSize = 40
        var bits: Int
        var compression = 0
        /// Written after an INFO header (BITFIELDS: 3, ALPHABITFIELDS: 4) or inside a V2+ header.
        var masks: [UInt32] = []
        var topDown = false
        /// RGB entries.
        var palette: [[UInt8]] = []
        var profile: Data?
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    static func le32(_ v: UInt32) -> [UInt8] { le32(Int(v)) }

    /// `rows`: each row's packed pixel bytes, top row first (padding added here), or for RLE the
    /// compressed stream as one row.
    static func file(width: Int, height: Int, layout: Layout, rows: [[UInt8]]) -> Data {
        let isRLE = layout.compression == 1 || layout.compression == 2
        var pixels: [UInt8] = []
        if isRLE {
            pixels = rows.flatMap { $0 }
        } else {
            for row in layout.topDown ? rows : rows.reversed() {
                pixels += row + [UInt8](repeating: 0, count: (4 - row.count % 4) % 4)
            }
        }
        var dib: [UInt8] = []
        if layout.headerSize == 12 {
            dib = le32(12) + le16(width) + le16(height) + le16(1) + le16(layout.bits)
        } else {
            dib = le32(layout.headerSize) + le32(width) + le32(layout.topDown ? -height : height) + le16(1) + le16(layout.bits)
            dib += le32(layout.compression) + le32(pixels.count) + le32(2835) + le32(2835) + le32(layout.palette.count) + le32(0)
            if layout.headerSize >= 52 {
                let masks = layout.masks + [UInt32](repeating: 0, count: 4 - layout.masks.count)
                dib += masks.prefix(layout.headerSize >= 56 ? 4 : 3).flatMap { le32($0) }
            }
            if layout.headerSize >= 108 {
                dib += le32(layout.profile != nil ? 0x4D42_4544 : 0x7352_4742)  // 'MBED' or 'sRGB'
                dib += [UInt8](repeating: 0, count: 36 + 12)  // endpoints, gamma
            }
            if layout.headerSize >= 124 {
                dib += le32(4)  // intent
                dib += le32(0) + le32(layout.profile?.count ?? 0) + le32(0)  // profile offset patched below
            }
        }
        precondition(dib.count == layout.headerSize, "header is \(dib.count) bytes")
        let extraMasks = layout.headerSize == 40 && (layout.compression == 3 || layout.compression == 6) ? layout.masks.flatMap { le32($0) } : []
        let paletteBytes: [UInt8] = layout.palette.flatMap { entry -> [UInt8] in
            layout.headerSize == 12 ? [entry[2], entry[1], entry[0]] : [entry[2], entry[1], entry[0], 0]
        }
        let pixelOffset = 14 + dib.count + extraMasks.count + paletteBytes.count
        var file: [UInt8] = Array("BM".utf8) + le32(0) + le32(0) + le32(pixelOffset)
        if let profile = layout.profile, layout.headerSize >= 124 {
            // The profile after the pixels, its offset counted from the header's start.
            let at = pixelOffset + pixels.count - 14
            dib.replaceSubrange(112..<116, with: le32(at))
            pixels += Array(profile)
        }
        file += dib + extraMasks + paletteBytes + pixels
        file.replaceSubrange(2..<6, with: le32(file.count))
        return Data(file)
    }
}
