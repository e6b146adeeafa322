import CWebP
import Foundation
import PipelineCore

/// One call of libwebp's decoder: a still file or one animation frame's fragment into a tightly
/// packed buffer we own (libwebp writes into it directly, no copy).
enum WebPPixelDecoder {
    /// Decodes `bytes` as `format` (`.rgb8` or `.rgba8`). With `scaledTo`, libwebp's own scaler
    /// decodes straight to that size (shrink-on-load), which is far cheaper than decoding full size
    /// and resampling.
    static func decode(_ bytes: UnsafeRawBufferPointer, as format: PixelFormat, scaledTo size: ImageSize? = nil) throws -> PixelBuffer {
        var features = WebPBitstreamFeatures()
        let headerStatus = WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        guard headerStatus == VP8_STATUS_OK else { throw error(headerStatus) }
        let full = ImageSize(width: Int(features.width), height: Int(features.height))
        let target = size ?? full
        let count = try PixelBuffer.byteCount(width: target.width, height: target.height, format: format)
        var config = WebPDecoderConfig()
        var status = VP8_STATUS_OK
        // libwebp fills every pixel on success, so the buffer need not be zeroed first; on failure
        // the bytes are dropped unread.
        let pixels = try [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            try configure(&config, as: format, from: full, to: target, into: out)
            status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
            initialized = status == VP8_STATUS_OK ? count : 0
        }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw error(status) }
        return try PixelBuffer(width: target.width, height: target.height, format: format, bytes: pixels)
    }

    /// What libwebp's incremental decoder makes of a file cut short, decoded straight at `target`
    /// (libwebp's scaler, as `decode`): the output rows it finished (and how many), the rest zero
    /// (black, or transparent with alpha); nil when it finished none. Never allocates the full
    /// canvas of a thumbnail.
    static func decodeRowsPresent(_ bytes: UnsafeRawBufferPointer, as format: PixelFormat, scaledTo target: ImageSize) throws -> (PixelBuffer, Int)? {
        let features = try self.features(bytes)
        let size = ImageSize(width: Int(features.width), height: Int(features.height))
        let count = try PixelBuffer.byteCount(width: target.width, height: target.height, format: format)
        // The incremental decoder keeps a pointer to its configuration until WebPIDelete.
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        defer { config.deallocate() }
        var rows: Int32 = 0
        var pixels = [UInt8](repeating: 0, count: count)
        try pixels.withUnsafeMutableBufferPointer { out in
            // libwebp writes into our buffer (external memory) and keeps no pointer past WebPIDelete.
            try configure(&config.pointee, as: format, from: size, to: target, into: out)
            guard let decoder = WebPIDecode(nil, 0, config) else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
            defer { WebPIDelete(decoder) }
            let status = WebPIUpdate(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            guard status == VP8_STATUS_SUSPENDED || status == VP8_STATUS_OK else { throw error(status) }
            var width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
            guard WebPIDecGetRGB(decoder, &rows, &width, &height, &stride) != nil,
                Int(width) == target.width, Int(height) == target.height
            else {
                rows = 0
                return
            }
        }
        WebPFreeDecBuffer(&config.pointee.output)
        guard rows > 0 else { return nil }
        return (try PixelBuffer(width: target.width, height: target.height, format: format, bytes: pixels), min(Int(rows), target.height))
    }

    /// `config` initialised to decode a `size` bitstream as `format` (`.rgb8` or `.rgba8`) at
    /// `target`, through libwebp's scaler when that differs, into `out` (external memory).
    private static func configure(
        _ config: inout WebPDecoderConfig, as format: PixelFormat, from size: ImageSize, to target: ImageSize,
        into out: UnsafeMutableBufferPointer<UInt8>
    ) throws {
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImagePipeError.unsupportedFormat(.webp, reason: "libwebp version mismatch")
        }
        config.output.colorspace = format == .rgba8 ? MODE_RGBA : MODE_RGB
        if target != size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(clamping: target.width)
            config.options.scaled_height = Int32(clamping: target.height)
        }
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = out.baseAddress
        config.output.u.RGBA.stride = Int32(clamping: target.width * format.bytesPerPixel)
        config.output.u.RGBA.size = out.count
    }

    /// Decodes RGBA straight into a region of a larger buffer (a canvas row stride), for frames
    /// that replace what is under them: no intermediate buffer and no copy.
    static func decodeRGBA(
        _ bytes: UnsafeRawBufferPointer, into region: UnsafeMutablePointer<UInt8>, stride: Int,
        width: Int, height: Int, regionBytes: Int
    ) throws {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImagePipeError.unsupportedFormat(.webp, reason: "libwebp version mismatch")
        }
        let features = try self.features(bytes)
        guard Int(features.width) == width, Int(features.height) == height else {
            throw ImagePipeError.badImageData(reason: "WebP frame bitstream size differs from its ANMF header")
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = region
        config.output.u.RGBA.stride = Int32(clamping: stride)
        config.output.u.RGBA.size = regionBytes
        let status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw error(status) }
    }

    /// Bytes libwebp holds to decode a bitstream with these features, besides the output: a
    /// lossless (VP8L) image is decoded whole into 32-bit pixels before conversion; a lossy one
    /// keeps a few macroblock rows, plus a byte a pixel for an alpha plane (two when that plane is
    /// itself lossless-coded, as encoders write it).
    static func decoderMemoryEstimate(_ features: WebPBitstreamFeatures) -> Int {
        let width = Int(features.width), height = Int(features.height)
        let pixels = width.multipliedReportingOverflow(by: height)
        guard !pixels.overflow else { return .max }
        let rows = width * 16 * 4 * 4
        switch features.format {
        case 2: return pixels.partialValue.multipliedReportingOverflow(by: 4).overflow ? .max : pixels.partialValue * 4 + rows
        default: return (features.has_alpha != 0 ? pixels.partialValue * 2 : 0) + rows
        }
    }

    static func features(_ bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw error(status) }
        return features
    }

    static func error(_ status: VP8StatusCode) -> ImagePipeError {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: .limitExceeded(.bytes, value: .max, maximum: .max)
        case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupportedFormat(.webp, reason: "libwebp does not support a feature this file uses")
        case VP8_STATUS_NOT_ENOUGH_DATA: .badImageData(reason: "WebP data is truncated")
        case VP8_STATUS_INVALID_PARAM: .badImageData(reason: "WebP decode was given invalid parameters")
        default: .badImageData(reason: "WebP bitstream is corrupt (libwebp status \(status.rawValue))")
        }
    }
}
