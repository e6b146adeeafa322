import CPNGShim
import Foundation
import PipelineCore

/// One sequential libpng read over bytes that outlive it (the caller keeps them pinned with
/// `withUnsafeBytes` for the reader's whole life). Used by one thread at a time.
final class PNGReader {
    private let handle: OpaquePointer

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw ImagePipeError.badImageData(reason: "PNG: no bytes")
        }
        guard let handle = ipng_reader_create(base.assumingMemoryBound(to: UInt8.self), bytes.count) else {
            throw ImagePipeError.badImageData(reason: "PNG: libpng could not start (out of memory)")
        }
        self.handle = handle
    }

    deinit { ipng_reader_destroy(handle) }

    /// Reads up to the image data and reports the size and the output layout.
    func readHeader() throws -> PNGLayout {
        var header = ipng_header()
        try check(ipng_reader_read_header(handle, &header))
        return try PNGLayout(header)
    }

    /// The orientation in an eXIf chunk before the image data, if there is one.
    var exifOrientation: ImageOrientation? {
        var bytes: UnsafePointer<UInt8>?
        let count = ipng_reader_exif(handle, &bytes)
        guard count > 0, let bytes else { return nil }
        return ExifOrientation.orientation(in: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Reads every row into `rows` (one pointer per row; Adam7 passes are combined by libpng).
    func readImage(into rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) throws {
        try check(ipng_reader_read_image(handle, rows))
    }

    /// Reads the next `count` rows of a non-interlaced image.
    func readRows(into rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int) throws {
        try check(ipng_reader_read_rows(handle, rows, UInt32(count)))
    }

    /// Reads the chunks after the image up to IEND, so a bad CRC or a truncated tail is refused too.
    func finish() throws {
        try check(ipng_reader_finish(handle))
    }

    var warningCount: Int { Int(ipng_reader_warning_count(handle)) }

    private func check(_ status: Int32) throws {
        guard status == 0 else { return }
        throw ImagePipeError.badImageData(reason: "PNG: " + String(cString: ipng_reader_message(handle)))
    }
}

/// The decoded layout libpng hands out after CPNGShim's transforms: 8 bits a channel.
struct PNGLayout {
    let size: ImageSize
    let format: PixelFormat
    let isInterlaced: Bool
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
        bytesPerRow = Int(header.rowbytes)
        let (expected, overflow) = size.width.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !overflow, expected == bytesPerRow else {
            throw ImagePipeError.badImageData(reason: "PNG: row of \(bytesPerRow) bytes does not match \(size) \(format)")
        }
    }
}
