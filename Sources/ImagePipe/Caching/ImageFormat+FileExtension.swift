import PipelineCore

extension ImageFormat {
    /// The extension a file of this format is saved with: the first of `fileExtensions`.
    public var preferredFileExtension: String? { fileExtensions.first }
}
