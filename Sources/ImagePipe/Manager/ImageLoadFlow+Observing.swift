import Foundation
import Logging
import PipelineCore
import Tracing

/// What a request tells the operator (`ImageManager.Settings.logger` and `.metrics`) and its caller
/// (`ImageResult.metrics`): failures counted by kind and logged, cache lookups counted per level,
/// joins of shared work counted, and the request's own timings put on its results.
extension ImageLoadFlow {
    /// A request refused before it started, counted and logged like any failure.
    static func rejected(_ error: ImagePipeError, url: URL?, settings: ImageManager.Settings) -> ImagePipeError {
        settings.metrics.recordFailure(error)
        settings.logger.debug(
            "image load refused: \(CredentialRedaction.redacting(error.description))",
            metadata: ["image.url": "\(CredentialRedaction.redacting(url?.absoluteString ?? ""))", "error.kind": "\(error.kind)"])
        return error
    }

    /// Fails the task with `error`, counted by kind; logged unless the caller cancelled.
    func fail(_ error: ImagePipeError, _ task: ImageTask) {
        metrics.recordFailure(error)
        if error != .cancelled {
            logger.debug("image load failed: \(CredentialRedaction.redacting(error.description))", metadata: ["error.kind": "\(error.kind)"])
        }
        if let span {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        task.emit(.failed(error), terminal: true)
    }

    /// Counts a query's answer as a hit or miss of each level asked: a memory answer is a memory
    /// hit; anything else is a memory miss, then a disk hit or miss.
    func countLookup(_ result: ImageCacheResult?, asked type: ImageCacheType) {
        let found = result?.image == nil ? ImageCacheType.none : result?.cacheType ?? .none
        if type.includesMemory { (found == .memory ? metrics.memoryHits : metrics.memoryMisses).increment() }
        if type.includesDisk, found != .memory { (found == .disk ? metrics.diskHits : metrics.diskMisses).increment() }
    }

    /// A shared transform's result for this request: a joiner counts as coalesced.
    func joinedTransform(_ shared: ProcessedSource, joined: Bool) -> ProcessedSource {
        guard joined else { return shared }
        metrics.transformJoins.increment()
        var processed = shared
        processed.metrics.isCoalesced = true
        return processed
    }

    /// `result` with this request's metrics as of now.
    func withMetrics(_ result: ImageResult) -> ImageResult {
        var result = result
        var metrics = taskMetrics
        metrics.totalDuration = .now - started
        metrics.cacheType = result.cacheType
        result.metrics = metrics
        return result
    }
}
