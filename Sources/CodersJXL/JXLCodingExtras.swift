import PipelineCore

/// JPEG XL-specific encode options.
extension ImageCodingExtras.Key where Value == Int {
    /// libjxl's effort, 1 (fastest) to 9 (smallest files), cjxl's `--effort`; default
    /// `JXLCoder.defaultEffort`.
    public static var jxlEffort: Self { .init("jxl.effort") }
}
