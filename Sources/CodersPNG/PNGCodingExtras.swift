import PipelineCore

extension ImageCodingExtras.Key where Value == Int {
    /// Compression level for PNG encoding on zlib's scale, 0 (store, fastest) to 9 (smallest);
    /// passed to libdeflate as it is. Default 6, the level libpng and most tools use: past it files
    /// barely shrink while encoding slows a lot.
    public static var pngCompressionLevel: Self { .init("png.compressionLevel") }

    /// Threads that compress a row-streamed PNG (`RowStreamingEncoder`) beside the thread that
    /// writes its rows, 0 (default) to compress on that thread, at most 16. Each holds one more
    /// 4 MiB piece of rows and its compressed output; the file is the same for every count.
    package static var pngCompressionThreads: Self { .init("png.compressionThreads") }
}
