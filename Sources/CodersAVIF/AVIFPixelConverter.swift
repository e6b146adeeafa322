import CAVIF
import PipelineCore

/// libavif's YUV (8, 10 or 12 bits, any subsampling, limited or full range) to our 8-bit pixels.
enum AVIFPixelConverter {
    /// The narrowest format that holds what the file has: monochrome (4:0:0) files stay gray.
    static func pixelFormat(hasAlpha: Bool, yuvFormat: avifPixelFormat) -> PixelFormat {
        let gray = yuvFormat == AVIF_PIXEL_FORMAT_YUV400
        switch (gray, hasAlpha) {
        case (true, true): return .grayAlpha8
        case (true, false): return .gray8
        case (false, true): return .rgba8
        case (false, false): return .rgb8
        }
    }

    /// The decoded frame as `format`, cropped to `crop` (its clean aperture) and resampled to
    /// `target` when that differs. libavif scales deeper samples to 8 bits and undoes
    /// premultiplied alpha as it converts; the crop is cut from its RGB output (libavif 0.11 has
    /// no view of part of an image).
    static func convert(_ image: UnsafePointer<avifImage>, to format: PixelFormat, crop: AVIFCleanAperture? = nil, target: ImageSize) throws -> PixelBuffer {
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        let wide: PixelFormat = format.hasAlpha ? .rgba8 : .rgb8
        let count = try PixelBuffer.byteCount(width: width, height: height, format: wide)
        var rgb = avifRGBImage()
        ip_avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = wide == .rgba8 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.rowBytes = UInt32(clamping: width * wide.bytesPerPixel)
        var result = AVIF_RESULT_OK
        // libavif writes every pixel on success; on failure the bytes are dropped unread.
        var bytes = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            rgb.pixels = out.baseAddress
            result = ip_avifImageYUVToRGB(image, &rgb)
            initialized = result == AVIF_RESULT_OK ? count : 0
        }
        guard result == AVIF_RESULT_OK else {
            throw ImagePipeError.badImageData(reason: "AVIF colour conversion failed: \(String(cString: ip_avifResultToString(result)))")
        }
        var size = ImageSize(width: width, height: height)
        if let crop, crop.size != size, crop.x + crop.width <= width, crop.y + crop.height <= height {
            bytes = Self.cut(bytes, rowBytes: width * wide.bytesPerPixel, crop, bytesPerPixel: wide.bytesPerPixel)
            size = crop.size
        }
        var buffer = try PixelBuffer(width: size.width, height: size.height, format: wide, bytes: bytes)
        if buffer.size != target { buffer = buffer.resampled(to: target) }
        return format == wide ? buffer : buffer.converted(to: format)
    }

    /// The rows and columns of `crop` out of an image of `rowBytes` a row.
    private static func cut(_ bytes: [UInt8], rowBytes: Int, _ crop: AVIFCleanAperture, bytesPerPixel: Int) -> [UInt8] {
        let cropRowBytes = crop.width * bytesPerPixel
        var out: [UInt8] = []
        out.reserveCapacity(cropRowBytes * crop.height)
        for row in crop.y..<crop.y + crop.height {
            let start = row * rowBytes + crop.x * bytesPerPixel
            out += bytes[start..<start + cropRowBytes]
        }
        return out
    }

    /// Bytes libavif and its AV1 decoder hold for a frame of `image`'s size, depth and
    /// subsampling: the YUV and alpha planes the decoder outputs, the same again inside it (its
    /// own picture and reconstruction buffers), and in a sequence up to 8 reference frames.
    static func decoderMemory(_ image: avifImage, hasAlpha: Bool, frameCount: Int) -> Int {
        let width = Int(image.width), height = Int(image.height)
        let sample = image.depth > 8 ? 2 : 1
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let chroma: Int
        switch image.yuvFormat {
        case AVIF_PIXEL_FORMAT_YUV444: chroma = 2 * width * height
        case AVIF_PIXEL_FORMAT_YUV422: chroma = 2 * chromaWidth * height
        case AVIF_PIXEL_FORMAT_YUV400: chroma = 0
        default: chroma = 2 * chromaWidth * chromaHeight
        }
        let luma = width.multipliedReportingOverflow(by: height)
        guard !luma.overflow else { return .max }
        let planes = (luma.partialValue * (hasAlpha ? 2 : 1) + chroma) * sample
        let frames = 2 + (frameCount > 1 ? min(frameCount, 8) : 0)
        let total = planes.multipliedReportingOverflow(by: frames)
        return total.overflow ? .max : total.partialValue
    }
}
