import PipelineCore

/// AVIF-specific encode options.
extension ImageCodingExtras.Key where Value == Int {
    /// libavif's encoder speed, 0 (slowest, smallest files) to 10 (fastest). Default
    /// `AVIFCoder.defaultSpeed`.
    public static var avifSpeed: Self { .init("avif.speed") }
}

extension ImageCodingExtras.Key where Value == Int {
    /// The side, in pixels, of the cells a large still is encoded in (an AVIF grid, each cell
    /// its own AV1 image, so a cancelled encode stops between cells). 0 writes every image as one
    /// AV1 image. Default `AVIFCoder.defaultGridCellSize`.
    public static var avifGridCellSize: Self { .init("avif.gridCellSize") }

    /// Stills with more pixels than this are encoded as a grid (`avifGridCellSize`); smaller ones
    /// as one AV1 image. Default `AVIFCoder.defaultGridMinimumPixels`.
    public static var avifGridMinimumPixels: Self { .init("avif.gridMinimumPixels") }
}
