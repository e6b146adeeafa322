/// Runs transformers in order (SDWebImage's `SDImagePipelineTransformer`). Its key is the members'
/// keys joined with `-`; each member's `preservesImageMetadata` decides whether metadata survives
/// that step.
import PipelineCore

public struct PipelineTransformer: ImageTransformer {
    public let transformers: [any ImageTransformer]

    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var key: String { transformers.map(\.key).joined(separator: "-") }

    /// The pipeline passes metadata through member by member, so it reports false itself.
    public var preservesImageMetadata: Bool { false }

    public func transform(_ image: Image) throws -> Image {
        try transformers.reduce(image) { current, transformer in try transformer.apply(to: current) }
    }
}
