/// Turns one image into another: resize, crop, round, tint… (SDWebImage's `SDImageTransformer`).
///
/// The `key` must describe the output completely: it is appended to the cache key, so two
/// transformers with equal keys must produce equal images from equal input.
public protocol ImageTransformer: Sendable {
    /// Describes the transformation and all its parameters, e.g.
    /// `SDImageResizingTransformer({100.000000,100.000000},1)`.
    var key: String { get }
    /// Whether the output keeps the input's metadata (format, scale, decode options). Default true.
    var preservesImageMetadata: Bool { get }
    /// The transformed image. Never mutates `image` (images are values); throws when it cannot.
    func transform(_ image: Image) throws -> Image
}

extension ImageTransformer {
    public var preservesImageMetadata: Bool { true }
}

/// Put in the context's `.imageTransformer` to switch off the manager's transformer for one
/// request (SDWebImage's `NSNull`).
public struct NoImageTransformer: ImageTransformer {
    public init() {}
    public var key: String { "" }
    public func transform(_ image: Image) throws -> Image { image }
}
