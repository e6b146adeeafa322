import CPNGShim
import Foundation
import PipelineCore

/// A PNG written a strip of rows at a time to a file descriptor (`ImageRowSink`, over CPNGShim's
/// stream writer): the colour type is the rows' own, as the rows are not all seen before the
/// header is written (the whole-image encoder narrows an opaque RGBA image to RGB, a gray-looking
/// RGB one to gray).
final class PNGRowSink: ImageRowSink {
    private let writer: OpaquePointer
    private let size: ImageSize
    private let format: PixelFormat

    /// Writes the signature and IHDR at once. `threads` compress beside the caller (CPNGShim's
    /// `ipng_stream_writer_create`).
    init(fileDescriptor: Int32, size: ImageSize, format: PixelFormat, level: Int, threads: Int = 0) throws {
        guard let width = UInt32(exactly: size.width), let height = UInt32(exactly: size.height) else {
            throw ImagePipeError.encodingFailed(reason: "PNG: \(size) is larger than PNG allows")
        }
        var message = [CChar](repeating: 0, count: 256)
        let writer = message.withUnsafeMutableBufferPointer { message in
            ipng_stream_writer_create(
                fileDescriptor, width, height, Int32(format.channelCount), Int32(level), Int32(threads), message.baseAddress,
                message.count)
        }
        guard let writer else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImagePipeError.encodingFailed(reason: "PNG: " + reason)
        }
        self.writer = writer
        self.size = size
        self.format = format
    }

    deinit { ipng_stream_writer_destroy(writer) }

    func write(_ rows: PixelBuffer) throws {
        guard rows.width == size.width, rows.format == format else {
            throw RowStreamFallback("PNG rows changed from \(format) to \(rows.format)")
        }
        try check(rows.bytes.withUnsafeBufferPointer { ipng_stream_writer_write_rows(writer, $0.baseAddress, UInt32(rows.height)) })
    }

    func finish() throws { try check(ipng_stream_writer_finish(writer)) }

    private func check(_ status: Int32) throws {
        guard status == 0 else { return }
        throw ImagePipeError.encodingFailed(reason: "PNG: " + String(cString: ipng_stream_writer_message(writer)))
    }
}
