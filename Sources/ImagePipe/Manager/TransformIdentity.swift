/// Transforms are shared when they transform the same source with a transformer of the same key.
import PipelineCore

struct TransformIdentity: Hashable, Sendable {
    enum Source: Hashable, Sendable {
        /// A decode of a download in flight.
        case download(DecodeIdentity)
        /// An original found in a cache under `key`, decoded with `options`.
        case cache(key: String, options: ImageDecodeOptions)
    }

    let source: Source
    let transformerKey: String
    let transformsAnimatedImages: Bool
}
