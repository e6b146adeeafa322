import CPNGShim
import Foundation
import PipelineCore

/// One sequential libpng read over bytes that outlive it (the caller keeps them pinned with
/// `withUnsafeBytes` for the reader's whole life). Used by one thread at a time.
final class PNGReader {
    private let handle: OpaquePointer

    /// `readSize`: the pieces libpng reads image data in (nil: its default of 8 KiB).
    /// `maxChunkBytes` caps what libpng inflates for one chunk (an ICC profile).
    init(_ bytes: UnsafeRawBufferPointer, readSize: Int? = nil, maxChunkBytes: Int) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw ImagePipeError.badImageData(reason: "PNG: no bytes")
        }
        guard let handle = ipng_reader_create(base.assumingMemoryBound(to: UInt8.self), bytes.count, max(maxChunkBytes, 0)) else {
            throw ImagePipeError.badImageData(reason: "PNG: libpng could not start (out of memory)")
        }
        self.handle = handle
        if let readSize { ipng_reader_set_read_size(handle, readSize) }
    }

    deinit { ipng_reader_destroy(handle) }

    /// Reads up to the image data and reports the size and the output layout.
    func readHeader() throws -> PNGLayout {
        var header = ipng_header()
        try check(ipng_reader_read_header(handle, &header))
        return try PNGLayout(header)
    }

    /// The colour description read with the header, as browsers rank the chunks: iCCP, else
    /// sRGB, else gAMA (with cHRM when present). Nil when the file has none of them; a profile
    /// over `options.maxColorProfileBytes` is dropped with a warning.
    func colorProfile(options: ImageDecodeOptions) -> (ImageColorProfile?, ImageDecodeWarning?) {
        var color = ipng_color()
        ipng_reader_color(handle, &color)
        if color.icc_size > 0, let icc = color.icc {
            return options.acceptingColorProfile(.icc(Data(bytes: icc, count: color.icc_size)), format: "PNG")
        }
        if color.has_srgb != 0 { return (.sRGB, nil) }
        guard color.gamma > 0 else { return (nil, nil) }
        var chromaticities: ImageChromaticities?
        if color.has_chrm != 0 {
            let c = withUnsafeBytes(of: color.chrm) { Array($0.bindMemory(to: Int32.self)).map { Double($0) / 100_000 } }
            chromaticities = ImageChromaticities(
                whiteX: c[0], whiteY: c[1], redX: c[2], redY: c[3],
                greenX: c[4], greenY: c[5], blueX: c[6], blueY: c[7])
        }
        return (.calibrated(gamma: Double(color.gamma) / 100_000, chromaticities: chromaticities), nil)
    }

    /// Reads the next `count` rows of the current pass (an interlaced image is read `layout.passes`
    /// times over, libpng combining each pass into the rows). False when the file ended first:
    /// then `rowsRead` rows of a non-interlaced image stand.
    func readRows(into rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int) throws -> Bool {
        try checkUnlessTruncated(ipng_reader_read_rows(handle, rows, UInt32(count)))
    }

    /// Rows of a non-interlaced image read in full so far.
    var rowsRead: Int { Int(ipng_reader_rows_read(handle)) }

    /// Reads the chunks after the image up to IEND, so a bad CRC is refused too. False when the
    /// file ended first (the image is whole; only the tail is missing).
    func finish() throws -> Bool {
        try checkUnlessTruncated(ipng_reader_finish(handle))
    }

    /// True when reading stopped at surplus compressed data after the last row: the image is
    /// complete and the rest of the file was left unread.
    var stoppedAfterRows: Bool { ipng_reader_stopped_after_rows(handle) != 0 }

    /// libpng's warnings so far (damaged ancillary chunks it dropped, benign errors it let pass).
    var warnings: [ImageDecodeWarning] {
        (0..<ipng_reader_warning_count(handle)).compactMap { index in
            var repeats: Int32 = 0
            guard let text = ipng_reader_warning(handle, index, &repeats) else { return nil }
            return ImageDecodeWarning(.corruptData, message: "PNG: " + String(cString: text) + (repeats > 1 ? " (\(repeats) times)" : ""))
        }
    }

    private func check(_ status: Int32) throws {
        guard status == 0 else { return }
        throw ImagePipeError.badImageData(reason: "PNG: " + String(cString: ipng_reader_message(handle)))
    }

    private func checkUnlessTruncated(_ status: Int32) throws -> Bool {
        if status == 0, ipng_reader_truncated(handle) != 0 { return false }
        try check(status)
        return true
    }
}

/// The decoded layout libpng hands out after CPNGShim's transforms: 8 bits a channel.
struct PNGLayout {
    let size: ImageSize
    let format: PixelFormat
    let isInterlaced: Bool
    /// Times the rows are read: 7 Adam7 passes, or 1.
    let passes: Int
    let bytesPerRow: Int

    init(_ header: ipng_header) throws {
        size = ImageSize(width: Int(header.width), height: Int(header.height))
        switch header.channels {
        case 1: format = .gray8
        case 2: format = .grayAlpha8
        case 3: format = .rgb8
        case 4: format = .rgba8
        default: throw ImagePipeError.badImageData(reason: "PNG: unexpected channel count \(header.channels)")
        }
        isInterlaced = header.interlaced != 0
        passes = Int(header.passes)
        bytesPerRow = Int(header.rowbytes)
        let (expected, overflow) = size.width.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !overflow, expected == bytesPerRow else {
            throw ImagePipeError.badImageData(reason: "PNG: row of \(bytesPerRow) bytes does not match \(size) \(format)")
        }
    }
}
