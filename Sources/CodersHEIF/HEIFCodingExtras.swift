import PipelineCore

extension ImageCodingExtras.Key where Value == Bool {
    /// Decode the first thumbnail embedded beside the primary image, whatever its size, when the
    /// file has one (libvips' `heifload` `thumbnail` flag, which imgproxy's `eth:` sets): the image
    /// is then the thumbnail's size. Default false: a thumbnail is used only when a thumbnail
    /// request can be resampled from it as from the primary image.
    public static var heifEmbeddedThumbnail: Self { .init("heif.embeddedThumbnail") }
}
