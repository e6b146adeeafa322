import PipelineCore

extension ImageCodingExtras.Key where Value == Int {
    /// Compression level for PNG encoding on zlib's scale, 0 (store, fastest) to 9 (smallest);
    /// passed to libdeflate as it is. Default 6, the level libpng and most tools use: past it files
    /// barely shrink while encoding slows a lot.
    public static var pngCompressionLevel: Self { .init("png.compressionLevel") }
}
