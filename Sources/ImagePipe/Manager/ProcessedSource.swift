/// A decoded image and, when a transformer ran and succeeded, its output: what a shared transform
/// hands its joiners, with the transform stage of `metrics` added to the decode's.
import PipelineCore

struct ProcessedSource: Sendable {
    var decoded: DecodedSource
    var transformed: Image?
    var metrics: ImageTaskMetrics

    init(decoded: DecodedSource, transformed: Image?, transformDuration: Duration? = nil) {
        self.decoded = decoded
        self.transformed = transformed
        metrics = decoded.metrics
        metrics.transformDuration = transformDuration
    }
}
