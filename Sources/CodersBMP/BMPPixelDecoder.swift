import Foundation
import PipelineCore

/// The pixels of a BMP (or of an icon's DIB entry) whose headers `BMPHeader` has checked: every
/// depth, bit masks, RLE4/RLE8, rows top-down or bottom-up, into RGBA and then the narrowest
/// format that holds them (palette images whose colours are all gray become gray8, images
/// without alpha rgb8).
enum BMPPixelDecoder {
    /// The decoded image and what was recovered from (RLE data cut short).
    static func decode(
        _ header: BMPHeader, bytes: LittleEndianBytes, iconMask: Bool, checkpoint: DecodeCheckpoint
    ) throws -> (PixelBuffer, [ImageDecodeWarning]) {
        let width = header.size.width, height = header.size.height
        let byteCount = try PixelBuffer.byteCount(width: width, height: height, format: .rgba8)
        var rgba = [UInt8](repeating: 0, count: byteCount)
        var warnings: [ImageDecodeWarning] = []
        var usesAlpha: Bool
        switch header.compression {
        case .rle4, .rle8:
            let complete = try rgba.withUnsafeMutableBufferPointer { try decodeRunLength(header, bytes: bytes, into: $0, checkpoint: checkpoint) }
            if !complete { warnings.append(ImageDecodeWarning(.truncated, message: "BMP: run-length data ends before the end of the image")) }
            // Pixels the runs skipped stay transparent, as browsers show them.
            usesAlpha = hasTransparency(rgba)
        default:
            try bytes.data.withUnsafeBytes { raw in
                try rgba.withUnsafeMutableBufferPointer { out in try decodeRows(header, raw, into: out, checkpoint: checkpoint) }
            }
            usesAlpha = !header.alpha.isEmpty
            // Writers that fill an alpha mask's bits with zeros mean an opaque image.
            if usesAlpha, !hasOpaquePixel(rgba) {
                setOpaque(&rgba)
                usesAlpha = false
            }
        }
        if iconMask {
            usesAlpha = applyIconMask(header, bytes: bytes, to: &rgba, alphaFromPixels: usesAlpha) || usesAlpha
        }
        let buffer = PixelBuffer(unchecked: width, height: height, format: .rgba8, bytes: rgba)
        if usesAlpha { return (buffer, warnings) }
        let isGray = header.bitsPerPixel <= 8 && header.hasGrayPalette
        return (buffer.converted(to: isGray ? .gray8 : .rgb8), warnings)
    }

    /// Uncompressed rows of every depth.
    private static func decodeRows(
        _ header: BMPHeader, _ raw: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>, checkpoint: DecodeCheckpoint
    ) throws {
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), let target = out.baseAddress else { return }
        let width = header.size.width, height = header.size.height, bits = header.bitsPerPixel
        let (r, g, b, a) = (header.red, header.green, header.blue, header.alpha)
        let standard32 = bits == 32 && r.mask == 0xFF_0000 && g.mask == 0xFF00 && b.mask == 0xFF && (a.isEmpty || a.mask == 0xFF00_0000)
        try header.palette.withUnsafeBufferPointer { palette in
            for y in 0..<height {
                if y & 63 == 0 { try checkpoint.check() }
                let stored = header.isTopDown ? y : height - 1 - y
                // `BMPHeader` checked that every row, up to the last one's own bytes, is in the file.
                let row = base + header.pixelOffset + stored * header.rowBytes
                var o = target + y * width * 4
                switch bits {
                case 1, 2, 4, 8:
                    let perByte = 8 / bits, mask = (1 << bits) - 1
                    for x in 0..<width {
                        let byte = Int(row[x / perByte])
                        let index = (byte >> (8 - bits * (x % perByte + 1))) & mask
                        o[0] = palette[3 * index]
                        o[1] = palette[3 * index + 1]
                        o[2] = palette[3 * index + 2]
                        o[3] = 255
                        o += 4
                    }
                case 24:
                    var p = row
                    for _ in 0..<width {
                        o[0] = p[2]
                        o[1] = p[1]
                        o[2] = p[0]
                        o[3] = 255
                        o += 4
                        p += 3
                    }
                case 32 where standard32:
                    var p = row
                    let keepAlpha = !a.isEmpty
                    for _ in 0..<width {
                        o[0] = p[2]
                        o[1] = p[1]
                        o[2] = p[0]
                        o[3] = keepAlpha ? p[3] : 255
                        o += 4
                        p += 4
                    }
                default:
                    let bytesPerPixel = bits / 8
                    var p = row
                    for _ in 0..<width {
                        let pixel = bytesPerPixel == 2 ? UInt32(p[0]) | UInt32(p[1]) << 8 : UnsafeRawPointer(p).loadUnaligned(as: UInt32.self).littleEndian
                        o[0] = r.value(pixel)
                        o[1] = g.value(pixel)
                        o[2] = b.value(pixel)
                        o[3] = a.value(pixel, empty: 255)
                        o += 4
                        p += bytesPerPixel
                    }
                }
            }
        }
    }

    /// RLE8 or RLE4 runs, escapes (end of line, end of image, delta) and absolute runs, clipped to
    /// the image. False when the data ends before an end-of-image escape or the last row.
    private static func decodeRunLength(
        _ header: BMPHeader, bytes: LittleEndianBytes, into out: UnsafeMutableBufferPointer<UInt8>, checkpoint: DecodeCheckpoint
    ) throws -> Bool {
        let width = header.size.width, height = header.size.height
        let isRLE4 = header.compression == .rle4
        var at = header.pixelOffset
        var x = 0, y = 0
        func put(_ index: Int) {
            guard x < width, y < height else { return }
            let row = header.isTopDown ? y : height - 1 - y
            let o = (row * width + x) * 4
            out[o] = header.palette[3 * index]
            out[o + 1] = header.palette[3 * index + 1]
            out[o + 2] = header.palette[3 * index + 2]
            out[o + 3] = 255
        }
        var rowsSinceCheck = 0
        while y < height {
            guard let count = bytes.u8(at).map(Int.init), let value = bytes.u8(at + 1).map(Int.init) else { return false }
            at += 2
            if count > 0 {
                // An encoded run: one index (RLE8) or two alternating ones (RLE4), clipped to the row.
                let run = min(count, max(width - x, 0))
                for i in 0..<run {
                    put(isRLE4 ? (i & 1 == 0 ? value >> 4 : value & 0x0F) : value)
                    x += 1
                }
                x += count - run
                continue
            }
            switch value {
            case 0:
                x = 0
                y += 1
                rowsSinceCheck += 1
                if rowsSinceCheck >= 64 {
                    try checkpoint.check()
                    rowsSinceCheck = 0
                }
            case 1:
                return true
            case 2:
                guard let dx = bytes.u8(at).map(Int.init), let dy = bytes.u8(at + 1).map(Int.init) else { return false }
                at += 2
                x += dx
                y += dy
            default:
                // An absolute run of `value` indices, padded to a 16-bit boundary.
                let dataBytes = isRLE4 ? (value + 1) / 2 : value
                guard bytes.contains(at, count: dataBytes) else { return false }
                for i in 0..<value {
                    let byte = Int(bytes.u8(at + (isRLE4 ? i / 2 : i))!)
                    put(isRLE4 ? (i & 1 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    x += 1
                }
                at += (dataBytes + 1) & ~1
            }
        }
        return true
    }

    /// An icon's AND mask (1 bit a pixel, bottom-up, after the colour rows) makes masked pixels
    /// transparent; when the colour rows have alpha of their own, the mask is not used. True when
    /// the mask made any pixel transparent. A mask missing from the file is taken as all opaque.
    private static func applyIconMask(_ header: BMPHeader, bytes: LittleEndianBytes, to rgba: inout [UInt8], alphaFromPixels: Bool) -> Bool {
        guard !alphaFromPixels else { return false }
        let width = header.size.width, height = header.size.height
        guard let maskRowBytes = BMPHeader.rowBytes(width: width, bits: 1) else { return false }
        let start = header.pixelOffset + header.rowBytes * height
        guard bytes.contains(start, count: maskRowBytes * height) else { return false }
        var any = false
        for y in 0..<height {
            let row = start + (height - 1 - y) * maskRowBytes
            for x in 0..<width where bytes.u8(row + x / 8)! & (0x80 >> UInt8(x % 8)) != 0 {
                rgba[(y * width + x) * 4 + 3] = 0
                any = true
            }
        }
        return any
    }

    private static func hasTransparency(_ rgba: [UInt8]) -> Bool {
        stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
    }

    private static func hasOpaquePixel(_ rgba: [UInt8]) -> Bool {
        stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 0 }
    }

    private static func setOpaque(_ rgba: inout [UInt8]) {
        for i in stride(from: 3, to: rgba.count, by: 4) { rgba[i] = 255 }
    }
}
