import CWebP
import Foundation
import PipelineCore

/// Still and animated WebP encoding through libwebp's `WebPEncode` and `WebPAnimEncoder`.
enum WebPEncoder {
    static func encode(_ buffer: PixelBuffer, options: ImageEncodeOptions, slabRows: Int = WebPEncoder.slabRows) throws -> Data {
        // The conversion and libwebp's import before the encode cannot be stopped midway (a tenth of
        // a second each at 50 MP): a request given up before one starts does not run it.
        try DecodeCancellation.checkCurrent()
        let buffer = prepared(buffer, options: options)
        var config = try makeConfig(options)
        return try withPicture(lossless: options.lossless, slabRows: slabRows, importing: { buffer }) { picture in
            if WebPChildProcessEncode.isUsed(pixels: Int(picture.pointee.width) * Int(picture.pointee.height)) {
                return try WebPChildProcessEncode.encode(&config, picture)
            }
            var writer = WebPMemoryWriter()
            WebPMemoryWriterInit(&writer)
            defer { WebPMemoryWriterClear(&writer) }
            return try withUnsafeMutablePointer(to: &writer) { writerPointer in
                picture.pointee.writer = WebPMemoryWrite
                picture.pointee.custom_ptr = UnsafeMutableRawPointer(writerPointer)
                let encoded = withCancellationHook(on: picture) { WebPEncode(&config, picture) }
                guard encoded != 0 else {
                    if picture.pointee.error_code == VP8_ENC_ERROR_USER_ABORT { throw ImagePipeError.cancelled }
                    throw ImagePipeError.encodingFailed(reason: "libwebp failed (error \(picture.pointee.error_code.rawValue))")
                }
                return Data(bytes: writerPointer.pointee.mem, count: writerPointer.pointee.size)
            }
        }
    }

    /// Writes `frameCount` frames, asking `frame` for each in order and handing it to
    /// `WebPAnimEncoder` before asking for the next, so an animation streams through holding one
    /// frame (libwebp keeps the canvases it diffs against and the compressed frames).
    ///
    /// Frames of different sizes are resampled to the first frame's size (after `maxPixelSize`),
    /// because an animation has one canvas. Durations are rounded to whole milliseconds; libwebp
    /// merges consecutive identical frames into one longer frame.
    static func encodeAnimation(frameCount: Int, loopCount: Int, options: ImageEncodeOptions, frame: (Int) throws -> ImageFrame) throws -> Data {
        guard frameCount > 0 else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        let first = try frame(0)
        let size = options.outputSize(for: first.buffer.size)
        var config = try makeConfig(options)
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw ImagePipeError.encodingFailed(reason: "libwebp version mismatch")
        }
        encoderOptions.anim_params.loop_count = Int32(clamping: max(loopCount, 0))
        guard let encoder = WebPAnimEncoderNew(Int32(clamping: size.width), Int32(clamping: size.height), &encoderOptions) else {
            throw ImagePipeError.encodingFailed(reason: "libwebp could not start an animation of \(size)")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var timestamp = 0
        for index in 0..<frameCount {
            var milliseconds = 0
            // The frame's pixels are dropped once libwebp has imported them, before it encodes.
            try withPicture(
                lossless: options.lossless,
                importing: {
                    let frame = index == 0 ? first : try frame(index)
                    milliseconds = Int((max(frame.duration, 0) * 1000).rounded())
                    var buffer = frame.buffer
                    if buffer.size != size { buffer = buffer.resampled(to: size) }
                    // Each frame as it is (RGB or RGBA): libwebp turns every frame into ARGB on the canvas.
                    return prepared(buffer, options: ImageEncodeOptions())
                }
            ) { picture in
                let added = withCancellationHook(on: picture) { WebPAnimEncoderAdd(encoder, picture, Int32(clamping: timestamp), &config) }
                guard added != 0 else {
                    try DecodeCancellation.checkCurrent()
                    throw ImagePipeError.encodingFailed(reason: String(cString: WebPAnimEncoderGetError(encoder)))
                }
            }
            try DecodeCancellation.checkCurrent()
            let (next, overflow) = timestamp.addingReportingOverflow(max(milliseconds, 1))
            guard !overflow, next < Int(Int32.max) else { throw ImagePipeError.encodingFailed(reason: "animation is too long") }
            timestamp = next
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else {
            throw ImagePipeError.encodingFailed(reason: String(cString: WebPAnimEncoderGetError(encoder)))
        }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0 else {
            throw ImagePipeError.encodingFailed(reason: String(cString: WebPAnimEncoderGetError(encoder)))
        }
        return Data(bytes: output.bytes, count: output.size)
    }

    /// Scaled down to `maxPixelSize` (never up, aspect kept) and widened to what libwebp imports.
    private static func prepared(_ buffer: PixelBuffer, options: ImageEncodeOptions) -> PixelBuffer {
        var buffer = buffer
        let size = options.outputSize(for: buffer.size)
        if size != buffer.size { buffer = buffer.resampled(to: size) }
        let target: PixelFormat = buffer.format.hasAlpha ? .rgba8 : .rgb8
        return buffer.format == target ? buffer : buffer.converted(to: target)
    }

    private static func makeConfig(_ options: ImageEncodeOptions) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImagePipeError.encodingFailed(reason: "libwebp version mismatch") }
        config.quality = Float(options.qualityPercent)
        config.lossless = options.lossless ? 1 : 0
        if let method = options.extras[.webPMethod] { config.method = Int32(min(max(method, 0), 6)) }
        if let alphaQuality = options.extras[.webPAlphaQuality] { config.alpha_quality = Int32(min(max(alphaQuality, 0), 100)) }
        config.exact = (options.extras[.webPExact] ?? options.lossless) ? 1 : 0
        if let maxFileSize = options.maxFileSize, maxFileSize > 0, !options.lossless {
            // libwebp searches quality for this size; more passes converge closer to it.
            config.target_size = Int32(clamping: maxFileSize)
            config.pass = 6
        }
        guard WebPValidateConfig(&config) != 0 else { throw ImagePipeError.encodingFailed(reason: "invalid WebP encode options") }
        return config
    }

    /// Runs `encode` with libwebp's progress hook asking the cancellation of the work on this
    /// thread (`DecodeCancellation.current`): a cancelled encode stops within a few rows of
    /// macroblocks with `VP8_ENC_ERROR_USER_ABORT`. The flag travels in `user_data`, as the hook
    /// is a C function.
    static func withCancellationHook<R>(on picture: UnsafeMutablePointer<WebPPicture>, _ encode: () -> R) -> R {
        guard let cancellation = DecodeCancellation.current else { return encode() }
        return withExtendedLifetime(cancellation) {
            picture.pointee.user_data = Unmanaged.passUnretained(cancellation).toOpaque()
            picture.pointee.progress_hook = { _, picture in
                guard let context = picture?.pointee.user_data else { return 1 }
                return Unmanaged<DecodeCancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 0 : 1
            }
            defer {
                picture.pointee.progress_hook = nil
                picture.pointee.user_data = nil
            }
            return encode()
        }
    }

    /// A picture imported from the buffer `importing` makes, which is released before `body` runs.
    private static func withPicture<R>(
        lossless: Bool, slabRows: Int = WebPEncoder.slabRows, importing makeBuffer: () throws -> PixelBuffer,
        _ body: (UnsafeMutablePointer<WebPPicture>) throws -> R
    ) throws -> R {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImagePipeError.encodingFailed(reason: "libwebp version mismatch") }
        // Lossless works on ARGB; lossy converts to YUV on import anyway.
        picture.use_argb = lossless ? 1 : 0
        defer { WebPPictureFree(&picture) }
        do {
            let buffer = try makeBuffer()
            try DecodeCancellation.checkCurrent()
            picture.width = Int32(clamping: buffer.width)
            picture.height = Int32(clamping: buffer.height)
            let stride = Int32(clamping: buffer.bytesPerRow)
            let imported = try buffer.bytes.withUnsafeBufferPointer { pixels in
                if buffer.format == .rgba8 { return WebPPictureImportRGBA(&picture, pixels.baseAddress, stride) }
                if lossless || DecodeCancellation.current == nil { return WebPPictureImportRGB(&picture, pixels.baseAddress, stride) }
                return try importInSlabs(&picture, rows: pixels, stride: Int(stride), slabRows: slabRows)
            }
            guard imported != 0 else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
            try DecodeCancellation.checkCurrent()
        }
        return try withUnsafeMutablePointer(to: &picture) { try body($0) }
    }

    /// Rows of RGB converted to YUV per call when an encode can be stopped: about a megapixel of a
    /// wide image, an even count.
    static let slabRows = 256

    /// `rows` (8-bit RGB) imported into `picture` as YUV 4:2:0 in slabs of `slabRows` rows, checking
    /// between slabs whether to stop: libwebp converts a whole picture in one call that cannot be
    /// stopped (a few tenths of a second at 50 MP). Slabs are an even number of rows, so every 2×2
    /// chroma block lies in one slab and the planes are those one whole import makes.
    static func importInSlabs(
        _ picture: inout WebPPicture, rows: UnsafeBufferPointer<UInt8>, stride: Int, slabRows: Int
    ) throws -> Int32 {
        guard WebPPictureAlloc(&picture) != 0, let base = rows.baseAddress else { return 0 }
        let width = Int(picture.width), height = Int(picture.height)
        let chromaWidth = (width + 1) / 2
        let step = max(2, slabRows & ~1)
        for top in Swift.stride(from: 0, to: height, by: step) {
            try DecodeCancellation.checkCurrent()
            var slab = WebPPicture()
            guard WebPPictureInit(&slab) != 0 else { return 0 }
            defer { WebPPictureFree(&slab) }
            slab.use_argb = 0
            slab.width = Int32(width)
            slab.height = Int32(min(step, height - top))
            guard WebPPictureImportRGB(&slab, base + top * stride, Int32(stride)) != 0 else { return 0 }
            for row in 0..<Int(slab.height) {
                (picture.y + (top + row) * Int(picture.y_stride)).update(from: slab.y + row * Int(slab.y_stride), count: width)
            }
            for row in 0..<(Int(slab.height) + 1) / 2 {
                let target = (top / 2 + row) * Int(picture.uv_stride), source = row * Int(slab.uv_stride)
                (picture.u + target).update(from: slab.u + source, count: chromaWidth)
                (picture.v + target).update(from: slab.v + source, count: chromaWidth)
            }
        }
        return 1
    }
}
