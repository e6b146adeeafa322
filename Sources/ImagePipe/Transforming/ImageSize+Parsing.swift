import PipelineCore

extension ImageSize {
    /// Parses `WxH` (the command line's spelling), e.g. `256x256`.
    package init?(parsing text: some StringProtocol) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0 else { return nil }
        self.init(width: w, height: h)
    }
}
