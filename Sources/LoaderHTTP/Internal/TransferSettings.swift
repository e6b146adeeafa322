import PipelineCore

/// What a transfer was asked to do, fixed when it is created (by the first caller, SDWebImage's
/// rule for coalesced downloads; decryptors, progress and partial data stay per caller).
struct TransferSettings: Sendable {
    var request: HTTPLoadRequest
    var options: ImageOptions
    var configuration: HTTPLoaderConfiguration
    var credentials: HTTPCredentials?
    var responseModifier: HTTPResponseModifier?
    /// Whether the request carries `If-None-Match` / `If-Modified-Since`, so a 304 means "not modified".
    var isRevalidation: Bool
    /// Where the body goes instead of the result (`HTTPBodySink`).
    var bodySink: HTTPBodySink?
    var priority: ImageLoadPriority
    var order: HTTPExecutionOrder
}
