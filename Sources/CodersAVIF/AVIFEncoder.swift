import CAVIF
import Foundation
import PipelineCore

/// Still images and sequences through libavif's encoder (AV1 by whichever encoder libavif was
/// built with first: libaom on Debian).
enum AVIFEncoder {
    /// Writes one image, with `metadata`'s ICC profile (when it describes RGB pixels), EXIF and XMP.
    /// Large images become a grid of cells encoded one by one (`AVIFGridLayout`), so that a
    /// cancelled encode stops between cells; the others are one AV1 image.
    static func encode(_ buffer: PixelBuffer, metadata: ImageMetadata, options: ImageEncodeOptions) throws -> Data {
        var buffer = prepared(buffer, size: options.outputSize(for: buffer.size))
        // An alpha plane is a second AV1 image to encode and store: left out when nothing is transparent.
        if buffer.format.hasAlpha && !buffer.hasTransparentPixels { buffer = buffer.converted(to: .rgb8) }
        let cellSide = options.extras[.avifGridCellSize] ?? AVIFCoder.defaultGridCellSize
        let minimumPixels = options.extras[.avifGridMinimumPixels] ?? AVIFCoder.defaultGridMinimumPixels
        if let layout = AVIFGridLayout.layout(for: buffer.size, cellSide: cellSide, minimumPixels: minimumPixels) {
            return try AVIFGridEncoder.encode(buffer, layout: layout, metadata: metadata, options: options)
        }
        return try write(buffer, metadata: metadata, settings: AVIFEncoderSettings(options), yuvFormat: defaultYUVFormat(options))
    }

    /// One AV1 image of `buffer` (RGB or RGBA) in one file, as `avifEncoderWrite` writes it.
    static func write(_ buffer: PixelBuffer, metadata: ImageMetadata, settings: AVIFEncoderSettings, yuvFormat: avifPixelFormat) throws -> Data {
        let encoder = try makeEncoder(settings)
        defer { ip_avifEncoderDestroy(encoder) }
        let image = try makeImage(buffer, lossless: settings.lossless, yuvFormat: yuvFormat)
        defer { ip_avifImageDestroy(image) }
        if let icc = metadata.colorProfile?.iccData(describing: .rgb8) {
            icc.withUnsafeBytes { ip_avifImageSetProfileICC(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
        if let exif = metadata.exif {
            exif.withUnsafeBytes { ip_avifImageSetMetadataExif(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
        if let xmp = metadata.xmp {
            xmp.withUnsafeBytes { ip_avifImageSetMetadataXMP(image, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
        return try write(image, encoder: encoder)
    }

    /// In a child process when the work can be cancelled and the image is large enough for it to
    /// matter (`AVIFChildProcessEncode`).
    static func write(_ image: UnsafeMutablePointer<avifImage>, encoder: UnsafeMutablePointer<avifEncoder>) throws -> Data {
        if AVIFChildProcessEncode.isUsed(pixels: Int(image.pointee.width) * Int(image.pointee.height)) {
            return try AVIFChildProcessEncode.write(image, encoder: encoder)
        }
        var output = avifRWData()
        defer { ip_avifRWDataFree(&output) }
        let result = ip_avifEncoderWrite(encoder, image, &output)
        guard result == AVIF_RESULT_OK else { throw AVIFError.encoding(result, encoder.pointee.diag) }
        return Data(bytes: output.data, count: output.size)
    }

    /// 4:4:4 when lossless (with the identity matrix, so RGB survives exactly), else 4:2:0.
    static func defaultYUVFormat(_ options: ImageEncodeOptions) -> avifPixelFormat {
        options.lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420
    }

    /// Writes `frameCount` frames as an image sequence, asking `frame` for each in order and
    /// handing it to libavif before asking for the next, so an animation streams through holding
    /// one frame. Frames of other sizes are resampled to the first's (after `maxPixelSize`); the
    /// first frame decides whether the sequence has alpha. Durations are whole milliseconds.
    /// libavif 0.11 writes no repetition count: players loop the sequence forever.
    static func encodeAnimation(frameCount: Int, options: ImageEncodeOptions, frame: (Int) throws -> ImageFrame) throws -> Data {
        guard frameCount > 0 else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        let first = try frame(0)
        let size = options.outputSize(for: first.buffer.size)
        let format: PixelFormat = first.buffer.format.hasAlpha ? .rgba8 : .rgb8
        let encoder = try makeEncoder(AVIFEncoderSettings(options))
        defer { ip_avifEncoderDestroy(encoder) }
        encoder.pointee.timescale = 1000
        for index in 0..<frameCount {
            let current = index == 0 ? first : try frame(index)
            var buffer = prepared(current.buffer, size: size)
            if buffer.format != format { buffer = buffer.converted(to: format) }
            let image = try makeImage(buffer, lossless: options.lossless, yuvFormat: defaultYUVFormat(options))
            defer { ip_avifImageDestroy(image) }
            let milliseconds = UInt64(max((max(current.duration, 0) * 1000).rounded(), 1))
            let result = ip_avifEncoderAddImage(encoder, image, milliseconds, avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue))
            guard result == AVIF_RESULT_OK else { throw AVIFError.encoding(result, encoder.pointee.diag) }
        }
        var output = avifRWData()
        defer { ip_avifRWDataFree(&output) }
        let result = ip_avifEncoderFinish(encoder, &output)
        guard result == AVIF_RESULT_OK else { throw AVIFError.encoding(result, encoder.pointee.diag) }
        return Data(bytes: output.data, count: output.size)
    }

    static func makeEncoder(_ settings: AVIFEncoderSettings) throws -> UnsafeMutablePointer<avifEncoder> {
        try AVIFLibrary.open()
        guard let encoder = ip_avifEncoderCreate() else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        settings.apply(to: encoder)
        return encoder
    }

    /// An 8-bit image in `yuvFormat`, full range, tagged sRGB as avifenc tags untagged input
    /// (CICP 1/13/6), with the identity matrix when lossless so RGB survives exactly.
    private static func makeImage(_ buffer: PixelBuffer, lossless: Bool, yuvFormat: avifPixelFormat) throws -> UnsafeMutablePointer<avifImage> {
        guard let image = ip_avifImageCreate(UInt32(clamping: buffer.width), UInt32(clamping: buffer.height), 8, yuvFormat) else {
            throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max)
        }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        var rgb = avifRGBImage()
        ip_avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = buffer.format == .rgba8 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.rowBytes = UInt32(clamping: buffer.bytesPerRow)
        let result = buffer.bytes.withUnsafeBufferPointer { pixels in
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            return ip_avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            ip_avifImageDestroy(image)
            throw ImagePipeError.encodingFailed(reason: "libavif colour conversion: \(String(cString: ip_avifResultToString(result)))")
        }
        return image
    }

    /// Scaled to `size` and widened to what libavif converts (RGB or RGBA).
    private static func prepared(_ buffer: PixelBuffer, size: ImageSize) -> PixelBuffer {
        var buffer = buffer
        if size != buffer.size { buffer = buffer.resampled(to: size) }
        let target: PixelFormat = buffer.format.hasAlpha ? .rgba8 : .rgb8
        return buffer.format == target ? buffer : buffer.converted(to: target)
    }

}
