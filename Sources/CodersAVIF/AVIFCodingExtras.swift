import PipelineCore

/// AVIF-specific encode options.
extension ImageCodingExtras.Key where Value == Int {
    /// libavif's encoder speed, 0 (slowest, smallest files) to 10 (fastest). Default
    /// `AVIFCoder.defaultSpeed`.
    public static var avifSpeed: Self { .init("avif.speed") }
}
