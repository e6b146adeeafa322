import PipelineCore

extension ImageCodingExtras.Key where Value == Int {
    /// zlib compression level for PNG encoding, 0 (store, fastest) to 9 (smallest). Default 6, the
    /// level libpng and most tools use: past it files barely shrink while encoding slows a lot.
    public static var pngCompressionLevel: Self { .init("png.compressionLevel") }
}
