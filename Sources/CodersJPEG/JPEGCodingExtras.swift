import PipelineCore

/// How JPEG encoding stores colour detail.
public enum JPEGChromaSubsampling: String, Hashable, Sendable, CaseIterable {
    /// Colour at half resolution both ways: the usual choice for photos, smallest files.
    case yuv420
    /// Colour at full resolution: for sharp coloured edges (text, UI, line art).
    case yuv444
}

extension ImageCodingExtras.Key where Value == Bool {
    /// Write a progressive JPEG (several scans, coarse to fine); baseline when absent or false.
    public static var jpegProgressive: Self { .init("jpeg.progressive") }
}

extension ImageCodingExtras.Key where Value == JPEGChromaSubsampling {
    /// Chroma subsampling for JPEG encoding; 4:2:0 when absent.
    public static var jpegChromaSubsampling: Self { .init("jpeg.chromaSubsampling") }
}
