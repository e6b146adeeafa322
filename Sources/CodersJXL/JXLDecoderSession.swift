import CJXL
import Foundation
import PipelineCore

/// One libjxl decoder over one copy of a file's bytes, driven event by event.
///
/// libjxl reads its input in place until it is released, so the bytes are copied into memory the
/// session owns rather than borrowed from a `Data`; a progressive load appends to them. Not
/// thread-safe (libjxl's decoder is not): used by one call at a time, or behind a lock.
final class JXLDecoderSession {
    let decoder: OpaquePointer
    let stop: JXLStopCondition
    private var input: UnsafeMutableRawBufferPointer
    /// Bytes of `input` that hold the file so far.
    private var count: Int
    /// The `JXL_DEC_…` flags subscribed.
    private let events: Int32

    /// A decoder for `data` that reports `events` (`JXL_DEC_…` flags), with the pixels left as
    /// stored (the image carries the orientation instead) and alpha straight, not premultiplied.
    init(_ data: Data, events: JxlDecoderStatus..., checkpoint: DecodeCheckpoint?) throws {
        try JXLLibrary.open()
        guard let decoder = ip_JxlDecoderCreate(nil) else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        self.decoder = decoder
        stop = JXLStopCondition(checkpoint)
        input = .allocate(byteCount: max(data.count, 1), alignment: 16)
        count = data.copyBytes(to: input)
        self.events = events.reduce(Int32(0)) { $0 | Int32(bitPattern: $1.rawValue) }
        // From here on `deinit` releases the decoder and the copy, whatever throws.
        guard ip_JxlDecoderSubscribeEvents(decoder, self.events) == JXL_DEC_SUCCESS,
            ip_JxlDecoderSetKeepOrientation(decoder, 1) == JXL_DEC_SUCCESS,
            ip_JxlDecoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS,
            ip_JxlDecoderSetParallelRunner(decoder, JXLStopCondition.runner, stop.context) == JXL_DEC_SUCCESS
        else { throw ImagePipeError.unsupportedFormat(.jxl, reason: "libjxl refused the decoder's settings") }
        setInput()
    }

    deinit {
        ip_JxlDecoderDestroy(decoder)
        input.deallocate()
    }

    private func setInput(from offset: Int = 0) {
        _ = ip_JxlDecoderSetInput(decoder, input.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count - offset)
    }

    /// More bytes of a file still arriving. libjxl gives back the input it has not consumed, which
    /// is handed over again followed by `bytes`.
    func append(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        let unconsumed = ip_JxlDecoderReleaseInput(decoder)
        let needed = count + bytes.count
        if needed > input.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, input.count * 2), alignment: 16)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[..<count]))
            input.deallocate()
            input = grown
        }
        _ = bytes.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: input[count...]))
        count = needed
        setInput(from: count - bytes.count - unconsumed)
    }

    /// Back to the start of the file, with the same settings, frame `index` next (libjxl decodes
    /// the frames it depends on, without output). libjxl 0.7 forgets the events on rewinding (its
    /// next call then ends the decode at once), so they are subscribed again.
    func rewind(toFrame index: Int) {
        ip_JxlDecoderRewind(decoder)
        _ = ip_JxlDecoderSubscribeEvents(decoder, events)
        setInput()
        if index > 0 { ip_JxlDecoderSkipFrames(decoder, index) }
    }

    /// The next event. A stop asked for by the checkpoint surfaces here as its own error.
    func next() throws -> JxlDecoderStatus {
        let status = ip_JxlDecoderProcessInput(decoder)
        if status == JXL_DEC_ERROR { try stop.check() }
        return status
    }

    func basicInfo() throws -> JxlBasicInfo {
        var info = JxlBasicInfo()
        guard ip_JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
            throw ImagePipeError.badImageData(reason: "JPEG XL header is unreadable")
        }
        return info
    }

    func frameHeader() throws -> JxlFrameHeader {
        var header = JxlFrameHeader()
        guard ip_JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
            throw ImagePipeError.badImageData(reason: "JPEG XL frame header is unreadable")
        }
        return header
    }

    /// How the decoded pixels are to be read: sRGB when libjxl says so with an enumerated encoding
    /// (the usual case, and every XYB-coded file decoded to an sRGB-like space), else its ICC
    /// profile, passed through `options`' size limit.
    func colorProfile(options: ImageDecodeOptions) -> (ImageColorProfile?, ImageDecodeWarning?) {
        var encoding = JxlColorEncoding()
        if ip_JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
            Self.isSRGB(encoding)
        {
            return (.sRGB, nil)
        }
        var size = 0
        guard ip_JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0 else {
            return (nil, nil)
        }
        if let warning = options.colorProfileWarning(bytes: size, format: "JPEG XL") { return (nil, warning) }
        var bytes = [UInt8](repeating: 0, count: size)
        guard ip_JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size) == JXL_DEC_SUCCESS else {
            return (nil, nil)
        }
        return (.icc(Data(bytes)), nil)
    }

    private static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        let colour = encoding.color_space == JXL_COLOR_SPACE_RGB || encoding.color_space == JXL_COLOR_SPACE_GRAY
        let primaries = encoding.color_space == JXL_COLOR_SPACE_GRAY || encoding.primaries == JXL_PRIMARIES_SRGB
        return colour && primaries && encoding.white_point == JXL_WHITE_POINT_D65 && encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
    }

    /// Hands libjxl `buffer` for the frame about to be decoded, as `format` (8 bits a sample).
    func setOutput(_ buffer: UnsafeMutableRawBufferPointer, format: PixelFormat) throws {
        var pixelFormat = Self.pixelFormat(format)
        var needed = 0
        guard ip_JxlDecoderImageOutBufferSize(decoder, &pixelFormat, &needed) == JXL_DEC_SUCCESS, needed <= buffer.count else {
            throw ImagePipeError.badImageData(reason: "JPEG XL frame does not match its header's size")
        }
        guard ip_JxlDecoderSetImageOutBuffer(decoder, &pixelFormat, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS else {
            throw ImagePipeError.badImageData(reason: "libjxl refused the output buffer")
        }
    }

    /// Draws what has been decoded of the current frame into its output buffer; false when
    /// nothing can be drawn yet.
    func flush() -> Bool { ip_JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS }

    static func pixelFormat(_ format: PixelFormat) -> JxlPixelFormat {
        JxlPixelFormat(num_channels: UInt32(format.bytesPerPixel), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
    }
}
