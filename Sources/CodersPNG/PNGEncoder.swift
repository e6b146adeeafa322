import CPNGShim
import Foundation
import PipelineCore

/// PNG encoding: upright pixels, scaled into `maxPixelSize`, written in the narrowest colour type
/// that loses nothing (an opaque RGBA image is written as RGB, a gray one as gray), with the
/// image's ICC profile in iCCP when its pixels are still in it (then colour stays colour: PNG
/// allows an RGB profile only on colour types) or its kept gAMA and cHRM facts, its EXIF in eXIf (orientation 1, as the pixels
/// are upright) and its XMP in iTXt.
///
/// The file is not written by libpng: the shim frames the PNG itself (IHDR, IDAT, IEND) and
/// compresses the filtered rows with libdeflate, because zlib's deflate inside libpng's writer was
/// most of an encode's time. Rows get the filters libpng would choose (the filtered bytes are
/// identical), so only the compressor differs: at the same level libdeflate is 2-3x as fast as zlib,
/// with files within about 3% of libpng's (at level 6 most are slightly larger, at level 1 smaller).
/// Decoding stays on libpng.
enum PNGEncoder {
    static let defaultCompressionLevel = 6

    static func encode(_ image: Image, options: ImageEncodeOptions) throws -> Data {
        let upright = try image.applyingOrientation()
        var pixels = upright.firstFrame
        let fitted = options.outputSize(for: pixels.size)
        if fitted != pixels.size { pixels = pixels.resampled(to: fitted) }
        let profile = image.metadata.colorProfile?.iccData(describing: pixels.format)
        var narrowest = pixels.narrowestLosslessFormat
        if profile != nil, !pixels.format.isGray { narrowest = narrowest.hasAlpha ? .rgba8 : .rgb8 }
        pixels = pixels.converted(to: narrowest)
        // libdeflate's levels 0-9 are zlib's scale; its slower 10-12 are not offered.
        let level = min(max(options.extras[.pngCompressionLevel] ?? defaultCompressionLevel, 0), 9)
        let (width, height, channels) = (pixels.width, pixels.height, pixels.format.channelCount)
        let data = try pixels.bytes.withUnsafeBufferPointer { bytes in
            try write(bytes, width: width, height: height, channels: channels, level: level)
        }
        let chunks = PNGColorChunk.chunks(for: image.metadata.colorProfile, pixels: pixels.format) + PNGMetadataChunks.chunks(for: upright)
        return PNGChunkInsertion.inserting(chunks, in: data) ?? data
    }

    /// Writes `pixels` (`height` rows of `width` pixels of `channels` 8-bit channels, tightly packed)
    /// as a PNG file.
    static func write(
        _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int,
        level: Int
    ) throws -> Data {
        guard let width32 = UInt32(exactly: width), let height32 = UInt32(exactly: height) else {
            throw ImagePipeError.encodingFailed(reason: "PNG: \(width)x\(height) is larger than PNG allows")
        }
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: channels)
        let (byteCount, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !overflow, byteCount == pixels.count, let base = pixels.baseAddress else {
            throw ImagePipeError.encodingFailed(reason: "PNG: \(pixels.count) bytes are not \(width)x\(height) pixels of \(channels) channels")
        }
        var output = ipng_buffer()
        var message = [CChar](repeating: 0, count: 256)
        // The work's cancellation, asked between rows while filtering and before compressing.
        let cancellation = DecodeCancellation.current
        let shouldStop = cancellation == nil ? nil : DecodeCancellation.cStopQuery
        let status = withExtendedLifetime(cancellation) {
            message.withUnsafeMutableBufferPointer { message in
                ipng_encode(
                    base, width32, height32, Int32(channels), Int32(level), &output, shouldStop,
                    cancellation?.unretained, message.baseAddress, message.count)
            }
        }
        if status < 0 { throw ImagePipeError.cancelled }
        guard status != 0, let bytes = output.bytes else {
            ipng_buffer_free(&output)
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImagePipeError.encodingFailed(reason: "PNG: " + reason)
        }
        // The shim's buffer comes from malloc and is handed over as it is, without a copy.
        return Data(bytesNoCopy: bytes, count: output.size, deallocator: .free)
    }
}
