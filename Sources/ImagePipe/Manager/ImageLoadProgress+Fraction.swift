import PipelineCore

extension ImageLoadProgress {
    /// 0…1, or nil when the total is unknown.
    public var fraction: Double? {
        guard let expected = expectedBytes, expected > 0 else { return nil }
        return min(Double(receivedBytes) / Double(expected), 1)
    }
}
