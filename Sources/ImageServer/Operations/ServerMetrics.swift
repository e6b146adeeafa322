import Metrics
import Prometheus
import Synchronization

/// The server's metrics through swift-metrics, collected in its own Prometheus registry (no global
/// bootstrap, so several servers can run in one process): requests by status and their duration,
/// source fetches, processing, cache hits by tier, requests in flight and queued. The libraries'
/// metrics (the pipeline's `PipelineMetrics`, a shared tier's) are made with `factory`, so
/// `/metrics` shows them too.
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let requestCounters = Mutex<[Int: Metrics.Counter]>([:])
    private let cacheCounters = Mutex<[String: Metrics.Counter]>([:])
    let requestDuration: Metrics.Timer
    let fetchDuration: Metrics.Timer
    let processingDuration: Metrics.Timer
    let inFlight: Metrics.Meter
    let queued: Metrics.Meter

    init() {
        registry = PrometheusCollectorRegistry()
        factory = PrometheusMetricsFactory(registry: registry)
        requestDuration = Metrics.Timer(label: "imagepipe_request_duration_seconds", dimensions: [], factory: factory)
        fetchDuration = Metrics.Timer(label: "imagepipe_source_fetch_duration_seconds", dimensions: [], factory: factory)
        processingDuration = Metrics.Timer(label: "imagepipe_processing_duration_seconds", dimensions: [], factory: factory)
        inFlight = Metrics.Meter(label: "imagepipe_requests_in_flight", dimensions: [], factory: factory)
        queued = Metrics.Meter(label: "imagepipe_requests_queued", dimensions: [], factory: factory)
    }

    func countRequest(status: Int, duration: Duration) {
        let counter = requestCounters.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = Metrics.Counter(label: "imagepipe_requests_total", dimensions: [("status", String(status))], factory: factory)
            counters[status] = counter
            return counter
        }
        counter.increment()
        requestDuration.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// `tier`: `output` (encoded results in memory), `memory` or `disk` (the pipeline's caches).
    func countCacheHit(tier: String) {
        let counter = cacheCounters.withLock { counters in
            if let counter = counters[tier] { return counter }
            let counter = Metrics.Counter(label: "imagepipe_cache_hits_total", dimensions: [("tier", tier)], factory: factory)
            counters[tier] = counter
            return counter
        }
        counter.increment()
    }

    /// The Prometheus text exposition of everything above, then the process' own metrics.
    func exposition() -> String { registry.emitToString() + ProcessMetrics.exposition() }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
