import CDeflate
import Foundation
import PipelineCore

/// The quick way to an APNG frame's pixels when the frame is plain (8-bit gray, gray+alpha, RGB or
/// RGBA, not interlaced, no tRNS): its data inflated by libdeflate in one call and the rows
/// unfiltered here. libpng's scalar unfiltering and zlib's inflate were most of a frame's time, and
/// a player decodes every frame of every loop; libdeflate is 2-3x zlib, as on the write side.
///
/// Anything else, and any frame whose data is not exactly right (bad zlib data, too little or too
/// much of it, an unknown filter), returns nil: libpng then decodes it and reports the damage as
/// for any PNG, so the quick way never decides what an error is.
enum PNGFrameInflater {
    static func pixels(
        width: Int, height: Int, header: PNGHeader, hasTRNS: Bool,
        compressed: UnsafeRawBufferPointer
    ) -> PixelBuffer? {
        guard header.bitDepth == 8, !header.isInterlaced, !hasTRNS else { return nil }
        let format: PixelFormat
        switch header.colorType {
        case 0: format = .gray8
        case 2: format = .rgb8
        case 4: format = .grayAlpha8
        case 6: format = .rgba8
        default: return nil
        }
        let channels = format.bytesPerPixel
        guard let outputBytes = try? PixelBuffer.byteCount(width: width, height: height, format: format) else { return nil }
        let rowBytes = width * channels
        let (rawBytes, overflow) = outputBytes.addingReportingOverflow(height)
        guard !overflow, let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        let raw = UnsafeMutablePointer<UInt8>.allocate(capacity: rawBytes)
        defer { raw.deallocate() }
        var read = 0, written = 0
        let result = libdeflate_zlib_decompress_ex(decompressor, compressed.baseAddress, compressed.count, raw, rawBytes, &read, &written)
        guard result == LIBDEFLATE_SUCCESS, written == rawBytes, read == compressed.count else { return nil }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: outputBytes) { out, count in
            let base = out.baseAddress!
            for y in 0..<height {
                let filtered = raw + y * (rowBytes + 1)
                let row = base + y * rowBytes
                guard
                    unfilter(
                        type: filtered[0], from: filtered + 1, into: row, previous: y > 0 ? UnsafePointer(row - rowBytes) : nil,
                        count: rowBytes, bytesPerPixel: channels)
                else {
                    failed = true
                    break
                }
            }
            count = failed ? 0 : outputBytes
        }
        guard !failed else { return nil }
        return try? PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// Undoes one row's filter (PNG's five: none, sub, up, average, Paeth) into `row`, given the
    /// row above already unfiltered (nil for the first row, which has zeros above). False for an
    /// unknown filter type.
    static func unfilter(
        type: UInt8, from filtered: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>,
        previous: UnsafePointer<UInt8>?, count: Int, bytesPerPixel bpp: Int
    ) -> Bool {
        switch type {
        case 0:
            row.update(from: filtered, count: count)
        case 1:
            for i in 0..<min(bpp, count) { row[i] = filtered[i] }
            var i = bpp
            while i < count {
                row[i] = filtered[i] &+ row[i - bpp]
                i += 1
            }
        case 2:
            guard let up = previous else {
                row.update(from: filtered, count: count)
                break
            }
            for i in 0..<count { row[i] = filtered[i] &+ up[i] }
        case 3:
            if let up = previous {
                for i in 0..<min(bpp, count) { row[i] = filtered[i] &+ up[i] >> 1 }
                var i = bpp
                while i < count {
                    row[i] = filtered[i] &+ UInt8((UInt16(row[i - bpp]) &+ UInt16(up[i])) >> 1)
                    i += 1
                }
            } else {
                for i in 0..<min(bpp, count) { row[i] = filtered[i] }
                var i = bpp
                while i < count {
                    row[i] = filtered[i] &+ row[i - bpp] >> 1
                    i += 1
                }
            }
        case 4:
            guard let up = previous else {
                // With zeros above, Paeth picks the left byte: the sub filter.
                return unfilter(type: 1, from: filtered, into: row, previous: nil, count: count, bytesPerPixel: bpp)
            }
            for i in 0..<min(bpp, count) { row[i] = filtered[i] &+ up[i] }
            var i = bpp
            while i < count {
                let a = Int(row[i - bpp]), b = Int(up[i]), c = Int(up[i - bpp])
                let pa = abs(b &- c), pb = abs(a &- c), pc = abs(a &+ b &- c &- c)
                let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                row[i] = filtered[i] &+ UInt8(truncatingIfNeeded: predictor)
                i += 1
            }
        default:
            return false
        }
        return true
    }
}
