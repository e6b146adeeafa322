import CJPEGShim
import Foundation
import PipelineCore

/// JPEG encoding: upright pixels, scaled into `maxPixelSize`, alpha composited over the
/// background colour (JPEG has no alpha), gray kept gray, and the image's EXIF (orientation 1, as
/// the pixels are upright), XMP and ICC profile embedded (the profile when its pixels are still in
/// it, `ImageColorProfile.iccData(describing:)`).
enum JPEGEncoder {
    static func encode(_ image: Image, options: ImageEncodeOptions) throws -> Data {
        let upright = try image.applyingOrientation()
        let data = try encodePixels(upright, options: options)
        return JPEGAppSegments.inserting(JPEGAppSegments.segments(for: upright), in: data) ?? data
    }

    private static func encodePixels(_ upright: Image, options: ImageEncodeOptions) throws -> Data {
        var pixels = upright.firstFrame
        let fitted = options.outputSize(for: pixels.size)
        if fitted != pixels.size { pixels = pixels.resampled(to: fitted) }
        pixels = pixels.converted(to: pixels.format.isGray ? .gray8 : .rgb8, background: options.backgroundColor)
        let settings = Settings(
            progressive: options.extras[.jpegProgressive] ?? false,
            subsampling: options.extras[.jpegChromaSubsampling] ?? .yuv420)
        // libjpeg treats quality 0 as 1 anyway; saying so keeps the search below honest.
        let quality = max(options.qualityPercent, 1)
        let first = try encode(pixels, quality: quality, settings: settings)
        guard let limit = options.maxFileSize, first.count > limit, quality > 1 else { return first }
        return try searchQuality(pixels, below: quality, limit: limit, settings: settings)
    }

    struct Settings {
        var progressive: Bool
        var subsampling: JPEGChromaSubsampling
    }

    /// The highest quality under `ceiling` whose file fits in `limit` bytes, found by bisection
    /// (file size grows with quality). When even quality 1 is too big, its file is the answer:
    /// the smallest this encoder can make, as SDWebImage returns.
    static func searchQuality(_ pixels: PixelBuffer, below ceiling: Int, limit: Int, settings: Settings) throws -> Data {
        var low = 1, high = ceiling - 1
        var best: Data?, atLowest: Data?
        while low <= high {
            let quality = (low + high) / 2
            let data = try encode(pixels, quality: quality, settings: settings)
            if quality == 1 { atLowest = data }
            if data.count <= limit {
                best = data
                low = quality + 1
            } else {
                high = quality - 1
            }
        }
        return try best ?? atLowest ?? encode(pixels, quality: 1, settings: settings)
    }

    static func encode(_ pixels: PixelBuffer, quality: Int, settings: Settings) throws -> Data {
        guard let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height),
            width <= 65_500, height <= 65_500
        else {
            throw ImagePipeError.encodingFailed(reason: "JPEG: \(pixels.size) is larger than JPEG's 65,500 pixels a side")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        // The work's cancellation, asked between rows: a cancelled encode stops within 16 rows.
        let cancellation = DecodeCancellation.current
        let shouldStop = cancellation == nil ? nil : DecodeCancellation.cStopQuery
        let status = withExtendedLifetime(cancellation) {
            pixels.bytes.withUnsafeBufferPointer { bytes in
                message.withUnsafeMutableBufferPointer { message in
                    ijpeg_encode(
                        bytes.baseAddress, width, height, Int32(pixels.format.channelCount), Int32(quality),
                        settings.progressive ? 1 : 0, settings.subsampling == .yuv444 ? 1 : 0,
                        &output, &size, shouldStop, cancellation?.unretained,
                        message.baseAddress, message.count)
                }
            }
        }
        defer { ijpeg_free(output) }
        if status < 0 { throw ImagePipeError.cancelled }
        guard status != 0, let output else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImagePipeError.encodingFailed(reason: "JPEG: " + reason)
        }
        return Data(bytes: output, count: size)
    }
}
