import CPNGShim
import Foundation
import PipelineCore

/// libpng's progressive (push) reader: bytes go in as they arrive, rows land in a canvas the shim
/// owns. Used by one thread at a time, under `PNGIncrementalDecoder`'s lock.
final class PNGStream {
    fileprivate let handle: OpaquePointer
    private let maxPixels: Int

    init(maxPixels: Int, maxChunkBytes: Int) throws {
        self.maxPixels = maxPixels
        guard let handle = ipng_stream_create(UInt64(max(maxPixels, 0)), max(maxChunkBytes, 0)) else {
            throw ImagePipeError.badImageData(reason: "PNG: libpng could not start (out of memory)")
        }
        self.handle = handle
    }

    deinit { ipng_stream_destroy(handle) }

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard ipng_stream_feed(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count) != 0 else {
            let reason = String(cString: ipng_stream_message(handle))
            if ipng_stream_over_limit(handle) != 0 {
                let claimed = Int(clamping: ipng_stream_claimed_pixels(handle))
                throw ImagePipeError.limitExceeded(.pixels, value: claimed, maximum: maxPixels)
            }
            throw ImagePipeError.badImageData(reason: "PNG: " + reason)
        }
    }

    var isFinished: Bool { ipng_stream_finished(handle) != 0 }

    /// What can be shown now: the rows of a non-interlaced image decoded so far (a shorter image),
    /// or the whole canvas of an interlaced one once its first pass has begun. Nil before any row.
    func partialPixels() throws -> PixelBuffer? {
        var header = ipng_header()
        guard ipng_stream_header(handle, &header) != 0, let canvas = ipng_stream_canvas(handle) else { return nil }
        let layout = try PNGLayout(header)
        let rows = Int(ipng_stream_rows(handle))
        let shownRows = layout.isInterlaced ? layout.size.height : min(rows, layout.size.height)
        guard rows > 0 || ipng_stream_pass(handle) > 0, shownRows > 0 else { return nil }
        let bytes = [UInt8](UnsafeBufferPointer(start: canvas, count: shownRows * layout.bytesPerRow))
        return try PixelBuffer(width: layout.size.width, height: shownRows, format: layout.format, bytes: bytes)
    }
}

extension PNGStream {
    /// The image's full height once the header is known.
    var fullHeight: Int? {
        var header = ipng_header()
        return ipng_stream_header(handle, &header) != 0 ? Int(header.height) : nil
    }
}
