import CJPEG
import CJPEGShim
import Foundation
import PipelineCore

/// One libjpeg decompressor, driven through CJPEGShim so that libjpeg's errors come back as
/// return values. Calls return false where libjpeg suspended for more input (progressive loads
/// only; one-shot sources end with a fake EOI instead). Used by one thread at a time.
final class JPEGDecompressor {
    private let handle: OpaquePointer
    private var options = ImageDecodeOptions()
    /// Kept alive here: libjpeg's progress monitor reaches it through an unretained pointer.
    private var checkpoint: DecodeCheckpoint?
    /// What the frame's coefficient buffers would take, for the error when libjpeg's own memory
    /// limit stops it.
    private var fullBufferEstimate: Int?

    init() throws {
        guard let handle = ijpeg_decoder_create() else {
            throw ImagePipeError.badImageData(reason: "JPEG: libjpeg could not start (out of memory)")
        }
        self.handle = handle
    }

    deinit { ijpeg_decoder_destroy(handle) }

    /// The libjpeg object: header fields to read, decode parameters to set between `readHeader`
    /// and `startDecompress`.
    var info: UnsafeMutablePointer<jpeg_decompress_struct> { ijpeg_decoder_info(handle) }

    /// Applies the options' decoder memory and scan limits, and polls `checkpoint` (if any) while
    /// libjpeg reads scans ahead and between output row groups. Call before `readHeader`.
    func limit(_ options: ImageDecodeOptions, checkpoint: DecodeCheckpoint?, frame: JPEGHeaderScan.Frame?) {
        self.options = options
        self.checkpoint = checkpoint
        fullBufferEstimate = frame?.decoderMemoryEstimate(buffersAllScans: true)
        let shouldStop: ijpeg_should_stop = { context in
            guard let context else { return 0 }
            return Unmanaged<DecodeCheckpoint>.fromOpaque(context).takeUnretainedValue().shouldStop ? 1 : 0
        }
        ijpeg_decoder_set_limits(
            handle, Int(clamping: max(options.maxDecoderMemory, 1)), Int32(clamping: max(options.maxProgressiveScans, 0)),
            checkpoint == nil ? nil : shouldStop, checkpoint.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    /// Reads from `bytes` directly; they must stay pinned for the decompressor's life.
    func use(_ bytes: UnsafeRawBufferPointer) {
        ijpeg_decoder_use_bytes(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// Appends a copy of more bytes (progressive loads).
    func append(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) throws {
        guard ijpeg_decoder_append(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, isComplete ? 1 : 0) != 0 else {
            throw ImagePipeError.badImageData(reason: "JPEG: out of memory buffering the file")
        }
    }

    func readHeader() throws -> Bool { try check(ijpeg_read_header(handle)) }
    func calculateOutputDimensions() throws { _ = try check(ijpeg_calc_output_dimensions(handle)) }
    func startDecompress() throws -> Bool { try check(ijpeg_start_decompress(handle)) }
    func finishDecompress() throws -> Bool { try check(ijpeg_finish_decompress(handle)) }
    func startOutput(scan: Int32) throws -> Bool { try check(ijpeg_start_output(handle, scan)) }
    func finishOutput() throws -> Bool { try check(ijpeg_finish_output(handle)) }

    /// Reads up to `count` rows into `rows`; 0 when suspended.
    func readScanlines(into rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int) throws -> Int {
        var read: UInt32 = 0
        _ = try check(ijpeg_read_scanlines(handle, rows, UInt32(clamping: count), &read))
        return Int(read)
    }

    /// One step of buffered-image input: libjpeg's JPEG_REACHED_SOS, JPEG_REACHED_EOI,
    /// JPEG_ROW_COMPLETED, JPEG_SCAN_COMPLETED, or JPEG_SUSPENDED.
    func consumeInput() throws -> Int32 {
        var event: Int32 = 0
        _ = try check(ijpeg_consume_input(handle, &event))
        return event
    }

    /// Input bytes libjpeg has not read; after `finishDecompress`, the bytes after EOI.
    var bytesLeft: Int { ijpeg_decoder_bytes_left(handle) }

    /// libjpeg's warnings so far: the first of each kind, saying how often it came.
    var warnings: [ImageDecodeWarning] {
        (0..<ijpeg_decoder_warning_count(handle)).compactMap { index in
            var repeats: Int32 = 0, isTruncation: Int32 = 0
            guard let text = ijpeg_decoder_warning(handle, index, &repeats, &isTruncation) else { return nil }
            let message = "JPEG: " + String(cString: text) + (repeats > 1 ? " (\(repeats) times)" : "")
            return ImageDecodeWarning(isTruncation != 0 ? .truncated : .corruptData, message: message)
        }
    }

    private func check(_ status: Int32) throws -> Bool {
        if status == IJPEG_ERROR {
            switch Int(ijpeg_decoder_stop_reason(handle)) {
            case Int(IJPEG_STOP_SCANS):
                try options.checkProgressiveScans(Int(info.pointee.input_scan_number))
            case Int(IJPEG_STOP_REQUESTED):
                try checkpoint?.check()
                throw ImagePipeError.cancelled
            default:
                break
            }
            if ijpeg_decoder_error_is_memory_limit(handle) != 0 {
                let limit = options.maxDecoderMemory
                throw ImagePipeError.limitExceeded(.decoderMemory, value: max(fullBufferEstimate ?? 0, limit &+ 1), maximum: limit)
            }
            let message = String(cString: ijpeg_decoder_message(handle))
            if ijpeg_decoder_error_is_unsupported(handle) != 0 {
                throw ImagePipeError.unsupportedFormat(.jpeg, reason: message)
            }
            throw ImagePipeError.badImageData(reason: "JPEG: " + message)
        }
        return status == IJPEG_OK
    }
}
