import PipelineCore

/// Which embedded thumbnail, if any, a thumbnail request can be decoded from instead of the
/// primary image (iPhones store a 320x240 one beside a 12-megapixel grid of tiles).
enum HEIFThumbnailChoice {
    /// The smallest thumbnail at least as large as `target` in both directions whose shape is the
    /// primary image's, so that resampling it gives what resampling the primary would; nil when
    /// none is. Writers round a thumbnail's sides to even numbers (heif-enc makes 320x212 of
    /// 1800x1200), so its height may be 2 pixels (or 1 %) off the primary's shape.
    static func pick<ID>(_ thumbnails: [(id: ID, size: ImageSize)], primary: ImageSize, target: ImageSize) -> ID? {
        guard target != primary, primary.width > 0, primary.height > 0 else { return nil }
        let usable = thumbnails.filter { thumbnail in
            let size = thumbnail.size
            guard size.width >= target.width, size.height >= target.height, size.width < primary.width else { return false }
            let expectedHeight = Double(primary.height) * Double(size.width) / Double(primary.width)
            return abs(expectedHeight - Double(size.height)) <= max(2, expectedHeight / 100)
        }
        return usable.min { $0.size.width < $1.size.width }?.id
    }
}
