import CHEIF
import Foundation
import PipelineCore

/// A parsed HEIF file and its primary image's handle, over a private copy of the bytes.
///
/// Ownership: libheif reads the bytes in place (`read_from_memory_without_copy`), so this value
/// owns them with the context and handle, and `deinit` releases the handle and context before
/// freeing the bytes. `~Copyable`, used by one decode on one thread.
struct HEIFFile: ~Copyable {
    private let context: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    let primary: OpaquePointer

    /// libheif refuses wider or taller images while parsing, before any allocation for pixels.
    /// Its own default is 32768; a request's `maxPixels` can only lower it.
    static let libheifDimensionLimit = 32768

    init(_ data: Data, options: ImageDecodeOptions) throws {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        try HEIFLibrary.open()
        guard let context = ip_heif_context_alloc() else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.copyBytes(to: bytes)
        do {
            ip_heif_context_set_maximum_image_size_limit(context, Int32(min(max(options.maxPixels, 1), Self.libheifDimensionLimit)))
            // Grid tiles are decoded on the calling thread: the pipeline runs decodes in parallel itself.
            ip_heif_context_set_max_decoding_threads(context, 0)
            let read = ip_heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
            if let claimed = HEIFError.claimedSize(read) { try options.checkPixelLimit(claimed) }
            try HEIFError.check(read, stage: "container")
            var handle: OpaquePointer?
            try HEIFError.check(ip_heif_context_get_primary_image_handle(context, &handle), stage: "primary image")
            guard let handle else { throw ImagePipeError.badImageData(reason: "HEIF file has no primary image") }
            guard !Self.size(of: handle).isEmpty else {
                ip_heif_image_handle_release(handle)
                throw ImagePipeError.badImageData(reason: "HEIF primary image has no pixels")
            }
            self.primary = handle
        } catch {
            ip_heif_context_free(context)
            bytes.deallocate()
            throw error
        }
        self.context = context
        self.bytes = bytes
    }

    deinit {
        ip_heif_image_handle_release(primary)
        ip_heif_context_free(context)
        bytes.deallocate()
    }

    /// The primary image's size once its transformations (rotation, mirroring, cropping) are
    /// applied, as it decodes.
    var size: ImageSize { Self.size(of: primary) }
    var hasAlpha: Bool { ip_heif_image_handle_has_alpha_channel(primary) != 0 }

    static func size(of handle: OpaquePointer) -> ImageSize {
        ImageSize(width: Int(ip_heif_image_handle_get_width(handle)), height: Int(ip_heif_image_handle_get_height(handle)))
    }

    /// The sizes of the primary image's embedded thumbnails, with their item IDs.
    var thumbnails: [(id: heif_item_id, size: ImageSize)] {
        let count = Int(ip_heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(ip_heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        return ids.prefix(listed).compactMap { id in
            var handle: OpaquePointer?
            guard ip_heif_image_handle_get_thumbnail(primary, id, &handle).code == heif_error_Ok, let handle else { return nil }
            defer { ip_heif_image_handle_release(handle) }
            return (id, Self.size(of: handle))
        }
    }

    /// Runs `body` with the handle of thumbnail `id`.
    func withThumbnail<R>(_ id: heif_item_id, _ body: (OpaquePointer) throws -> R) throws -> R {
        var handle: OpaquePointer?
        try HEIFError.check(ip_heif_image_handle_get_thumbnail(primary, id, &handle), stage: "thumbnail")
        guard let handle else { throw ImagePipeError.badImageData(reason: "HEIF thumbnail \(id) is missing") }
        defer { ip_heif_image_handle_release(handle) }
        return try body(handle)
    }
}
