import Foundation
import PipelineCore

/// A decoded image, the bytes it came from and what their source said about them: what a shared
/// decode hands its joiners, with the load and decode stages of `metrics` filled in.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
    var validators: CacheValidators?
    /// Decoded from the file's first bytes only (`ImageLoadResult.isPrefix`): `data` is nil, and
    /// nothing is stored on disk under the original key (the image is one frame of a longer file).
    var isPrefix = false
    var metrics = ImageTaskMetrics()
}
