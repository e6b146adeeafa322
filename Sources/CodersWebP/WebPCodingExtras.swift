import PipelineCore

/// WebP-specific encode options, in the spirit of SDWebImageWebPCoder's `webPMethod` and
/// `webPAlphaQuality` keys.
extension ImageCodingExtras.Key where Value == Int {
    /// libwebp's effort, 0 (fastest) to 6 (smallest files); libwebp's default is 4.
    public static var webPMethod: Self { .init("webp.method") }
    /// Quality of the alpha plane in lossy files, 0 to 100 (lossless alpha); default 100.
    public static var webPAlphaQuality: Self { .init("webp.alphaQuality") }
}

extension ImageCodingExtras.Key where Value == Bool {
    /// Keep the RGB values under fully transparent pixels (libwebp's `exact`). Lossless encodes
    /// turn it on by default so a round trip keeps every byte.
    public static var webPExact: Self { .init("webp.exact") }
}
