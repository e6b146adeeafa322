import CHEIF
import PipelineCore

/// One image handle (the primary image or a thumbnail) decoded by libheif to 8-bit RGB or RGBA,
/// with its transformations applied and deeper samples scaled to 8 bits.
enum HEIFPixelDecoder {
    static func decode(_ handle: OpaquePointer, alpha: Bool) throws -> PixelBuffer {
        guard let options = ip_heif_decoding_options_alloc() else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        defer { ip_heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        let chroma = alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        try HEIFError.check(ip_heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options), stage: "image data")
        guard let image else { throw ImagePipeError.badImageData(reason: "libheif returned no image") }
        defer { ip_heif_image_release(image) }
        let format: PixelFormat = alpha ? .rgba8 : .rgb8
        let width = Int(ip_heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(ip_heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard let plane = ip_heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw ImagePipeError.badImageData(reason: "libheif returned an image without pixels")
        }
        let rowBytes = width * format.bytesPerPixel
        let count = try PixelBuffer.byteCount(width: width, height: height, format: format)
        guard Int(stride) >= rowBytes else { throw ImagePipeError.badImageData(reason: "libheif returned rows shorter than the image") }
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            for row in 0..<height {
                (out.baseAddress! + row * rowBytes).update(from: plane + row * Int(stride), count: rowBytes)
            }
            initialized = count
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: pixels)
    }
}
