import Foundation
import PipelineCore

/// What a BMP's headers say, read and checked before any pixel is touched: the DIB header
/// (OS/2 core, INFO, V2-V5), bit masks, palette and where the pixels are. The same header starts
/// each DIB entry of an icon, without the 14-byte file header.
struct BMPHeader {
    enum Compression: UInt32 {
        case rgb = 0
        case rle8 = 1
        case rle4 = 2
        case bitfields = 3
        case jpeg = 4
        case png = 5
        case alphaBitfields = 6
    }

    /// The image as shown: `height` is the DIB's for a BMP, half of it for an icon's DIB (whose
    /// height counts the AND mask too).
    let size: ImageSize
    let bitsPerPixel: Int
    let compression: Compression
    /// Rows stored first to last (a negative height) instead of bottom-up.
    let isTopDown: Bool
    let red: BMPChannelMask
    let green: BMPChannelMask
    let blue: BMPChannelMask
    let alpha: BMPChannelMask
    /// RGB triples, always 256 of them for depths up to 8 (indices past the file's palette are black).
    let palette: [UInt8]
    /// Entries the file's palette has.
    let paletteCount: Int
    /// Where the pixel rows start, from the first byte of the data.
    let pixelOffset: Int
    /// Bytes of one stored row (rows are padded to 4 bytes).
    let rowBytes: Int
    /// An embedded ICC profile (V5 `PROFILE_EMBEDDED`).
    let iccProfile: Data?

    /// Bytes one row of `width` pixels at `bits` a pixel takes, padded to 4; nil on overflow.
    static func rowBytes(width: Int, bits: Int) -> Int? {
        let (bitCount, overflow) = width.multipliedReportingOverflow(by: bits)
        guard !overflow, bitCount <= Int.max - 31 else { return nil }
        return (bitCount + 31) / 32 * 4
    }

    /// Reads the headers of a BMP file (`dibOffset` 14) or of an icon's DIB entry (`dibOffset` 0,
    /// `isIconEntry`). Throws `badImageData` for anything inconsistent, `unsupportedFormat` for
    /// BMPs holding JPEG or PNG, and `limitExceeded(.pixels)` for a size over `maxPixels`.
    init(_ bytes: LittleEndianBytes, dibOffset: Int, pixelOffset filePixelOffset: Int?, isIconEntry: Bool, options: ImageDecodeOptions) throws {
        func bad(_ reason: String) -> ImagePipeError { .badImageData(reason: "BMP: \(reason)") }
        guard let headerSize = bytes.u32(dibOffset).map(Int.init), bytes.contains(dibOffset, count: min(headerSize, 124)) else {
            throw bad("file ends inside its header")
        }
        let isCore = headerSize == 12
        guard isCore || headerSize == 16 || headerSize >= 40 else { throw bad("unknown header of \(headerSize) bytes") }
        let h = dibOffset
        let width: Int, rawHeight: Int, planes: Int, bits: Int
        var compressionCode: UInt32 = 0, colorsUsed = 0
        if isCore {
            width = Int(bytes.u16(h + 4)!)
            rawHeight = Int(bytes.u16(h + 6)!)
            planes = Int(bytes.u16(h + 8)!)
            bits = Int(bytes.u16(h + 10)!)
        } else {
            width = Int(bytes.i32(h + 4)!)
            rawHeight = Int(bytes.i32(h + 8)!)
            planes = Int(bytes.u16(h + 12)!)
            bits = Int(bytes.u16(h + 14)!)
            if headerSize >= 20 { compressionCode = bytes.u32(h + 16)! }
            if headerSize >= 36 { colorsUsed = Int(bytes.u32(h + 32)!) }
        }
        guard planes == 1 || isIconEntry else { throw bad("\(planes) planes; BMP has one") }
        guard let compression = Compression(rawValue: compressionCode) else { throw bad("unknown compression \(compressionCode)") }
        if compression == .jpeg || compression == .png {
            throw ImagePipeError.unsupportedFormat(.bmp, reason: "BMP holding \(compression == .jpeg ? "JPEG" : "PNG") data is not decoded")
        }
        guard width > 0 else { throw bad("width \(width)") }
        guard rawHeight != 0, rawHeight != Int(Int32.min) else { throw bad("height \(rawHeight)") }
        let height = isIconEntry ? abs(rawHeight) / 2 : abs(rawHeight)
        guard height > 0 else { throw bad("icon entry height \(rawHeight) holds no rows") }
        size = ImageSize(width: width, height: height)
        try options.checkPixelLimit(size)
        isTopDown = rawHeight < 0 && !isIconEntry

        switch (compression, bits) {
        case (.rgb, 1), (.rgb, 2), (.rgb, 4), (.rgb, 8), (.rgb, 16), (.rgb, 24), (.rgb, 32): break
        case (.rle8, 8), (.rle4, 4): break
        case (.bitfields, 16), (.bitfields, 32), (.alphaBitfields, 16), (.alphaBitfields, 32): break
        default: throw bad("\(bits) bits a pixel with compression \(compression)")
        }
        bitsPerPixel = bits
        self.compression = compression
        guard let rowBytes = Self.rowBytes(width: width, bits: bits) else { throw bad("rows of \(width) pixels overflow") }
        self.rowBytes = rowBytes

        // Masks: in the header from V2 (52 bytes) on; after an INFO header only with BITFIELDS.
        var masks: [UInt32] = bits == 16 ? [0x7C00, 0x03E0, 0x001F, 0] : [0xFF_0000, 0xFF00, 0xFF, 0]
        var tableOffset = h + headerSize
        if compression == .bitfields || compression == .alphaBitfields {
            let count = compression == .alphaBitfields ? 4 : 3
            let at = headerSize >= 52 ? h + 40 : h + headerSize
            for i in 0..<count {
                guard let mask = bytes.u32(at + 4 * i) else { throw bad("file ends inside its bit masks") }
                masks[i] = mask
            }
            if headerSize >= 56, compression == .bitfields { masks[3] = bytes.u32(h + 52) ?? 0 }
            if headerSize < 52 { tableOffset += 4 * count }
        } else if compression == .rgb, bits == 32, headerSize >= 56 {
            // A V3+ header's alpha mask says the fourth byte is alpha; INFO's 32-bit BI_RGB ignores it.
            masks[3] = bytes.u32(h + 52) ?? 0
        }
        if isIconEntry, bits == 32, compression == .rgb { masks[3] = 0xFF00_0000 }
        let limit: UInt32 = bits == 16 ? 0xFFFF : .max
        guard masks.allSatisfy({ $0 <= limit }), let r = BMPChannelMask(masks[0]), let g = BMPChannelMask(masks[1]),
            let b = BMPChannelMask(masks[2]), let a = BMPChannelMask(masks[3])
        else { throw bad("bit masks \(masks.map { String($0, radix: 16) }) are not contiguous runs within \(bits) bits") }
        (red, green, blue, alpha) = (r, g, b, a)

        // The palette: `colorsUsed` entries (all 2^bits when 0), BGR(X).
        var palette = [UInt8](repeating: 0, count: 256 * 3)
        var paletteCount = 0
        if bits <= 8 {
            let capacity = 1 << bits
            paletteCount = colorsUsed == 0 || colorsUsed > capacity ? capacity : colorsUsed
            let entryBytes = isCore ? 3 : 4
            if let filePixelOffset, filePixelOffset >= tableOffset {
                // Writers that leave out unused entries: only those before the pixels are palette.
                paletteCount = min(paletteCount, (filePixelOffset - tableOffset) / entryBytes)
            }
            guard bytes.contains(tableOffset, count: paletteCount * entryBytes) else { throw bad("file ends inside its palette") }
            for i in 0..<paletteCount {
                let at = tableOffset + i * entryBytes
                palette[3 * i] = bytes.u8(at + 2)!
                palette[3 * i + 1] = bytes.u8(at + 1)!
                palette[3 * i + 2] = bytes.u8(at)!
            }
            tableOffset += paletteCount * entryBytes
        }
        self.palette = palette
        self.paletteCount = paletteCount

        if let filePixelOffset {
            guard filePixelOffset >= h + min(headerSize, 124), filePixelOffset <= bytes.count else {
                throw bad("pixel data offset \(filePixelOffset) is outside the file (\(bytes.count) bytes) or inside its header")
            }
            pixelOffset = filePixelOffset
        } else {
            pixelOffset = tableOffset
        }

        // V4/V5: `PROFILE_EMBEDDED` ('MBED') with the profile's offset from the header's start.
        var profile: Data?
        if headerSize >= 124, bytes.u32(h + 56) == 0x4D42_4544, let offset = bytes.u32(h + 112), let length = bytes.u32(h + 116),
            length > 0, bytes.contains(h + Int(offset), count: Int(length))
        {
            let start = bytes.data.startIndex + h + Int(offset)
            profile = Data(bytes.data[start..<start + Int(length)])
        }
        iccProfile = profile

        // Uncompressed rows must all be in the file (the last row's padding may be missing): a
        // header claiming more rows than the file holds is refused before anything is allocated.
        if compression != .rle4 && compression != .rle8 {
            let lastRow = (width * bits + 7) / 8
            let (needed, overflow) = rowBytes.multipliedReportingOverflow(by: height - 1)
            let available = bytes.count - pixelOffset
            guard !overflow, needed <= available - lastRow else {
                throw bad(
                    "header says \(width)x\(height) at \(bits) bits a pixel, \(overflow ? Int.max : needed + lastRow) bytes of pixels, "
                        + "but the file holds \(available)")
            }
        }
    }

    /// Whether every palette entry in use is gray, so palette images can decode to gray8.
    var hasGrayPalette: Bool {
        guard paletteCount > 0 else { return false }
        for i in 0..<paletteCount {
            let r = palette[3 * i], g = palette[3 * i + 1], b = palette[3 * i + 2]
            if r != g || r != b { return false }
        }
        return true
    }
}
