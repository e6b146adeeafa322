import PipelineCore

/// Put in the context's `.imageTransformer` to switch off the manager's transformer for one
/// request (SDWebImage's `NSNull`).
public struct NoImageTransformer: ImageTransformer {
    public init() {}
    public var key: String { "" }
    public func transform(_ image: Image) throws -> Image { image }
}
