import CJPEGShim
import Foundation
import PipelineCore

/// A baseline (or progressive) JPEG written a strip of rows at a time to a file descriptor
/// (`ImageRowSink`, over CJPEGShim's stream encoder). Alpha is composited over the background and
/// gray stays gray, as the whole-image encoder does.
final class JPEGRowSink: ImageRowSink {
    private let encoder: OpaquePointer
    private let width: Int
    private let format: PixelFormat
    private let background: ImageColor

    init(fileDescriptor: Int32, size: ImageSize, format: PixelFormat, quality: Int, settings: JPEGEncoder.Settings, background: ImageColor) throws {
        guard let width = UInt32(exactly: size.width), let height = UInt32(exactly: size.height),
            width <= 65_500, height <= 65_500
        else {
            throw ImagePipeError.encodingFailed(reason: "JPEG: \(size) is larger than JPEG's 65,500 pixels a side")
        }
        let written: PixelFormat = format.isGray ? .gray8 : .rgb8
        var message = [CChar](repeating: 0, count: 256)
        let encoder = message.withUnsafeMutableBufferPointer { message in
            ijpeg_stream_encoder_create(
                fileDescriptor, width, height, Int32(written.channelCount), Int32(quality),
                settings.progressive ? 1 : 0, settings.subsampling == .yuv444 ? 1 : 0, message.baseAddress, message.count)
        }
        guard let encoder else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImagePipeError.encodingFailed(reason: "JPEG: " + reason)
        }
        self.encoder = encoder
        self.format = written
        self.width = size.width
        self.background = background
    }

    deinit { ijpeg_stream_encoder_destroy(encoder) }

    func write(_ rows: PixelBuffer) throws {
        guard rows.width == width else { throw ImagePipeError.encodingFailed(reason: "JPEG: rows of \(rows.width) pixels, not \(width)") }
        let written = rows.format == format ? rows : rows.converted(to: format, background: background)
        try check(written.bytes.withUnsafeBufferPointer { ijpeg_stream_encoder_write_rows(encoder, $0.baseAddress, UInt32(written.height)) })
    }

    func finish() throws { try check(ijpeg_stream_encoder_finish(encoder)) }

    private func check(_ status: Int32) throws {
        guard status == 0 else { return }
        throw ImagePipeError.encodingFailed(reason: "JPEG: " + String(cString: ijpeg_stream_encoder_message(encoder)))
    }
}
