import CoreMetrics

/// A `RedisImageCache`'s counters through swift-metrics, for dashboards and alerts beside
/// ImagePipe's `PipelineMetrics` (same conventions). The metrics go to the factory given, by
/// default the one `MetricsSystem.bootstrap` installed; `imagepipe serve` passes its `/metrics`
/// registry's.
///
/// | Label | Kind | Dimensions |
/// |---|---|---|
/// | `imagepipe_redis_lookups_total` | counter | `result` (hit, miss) |
/// | `imagepipe_redis_stores_total` | counter | `result` (stored, too_large) |
/// | `imagepipe_redis_errors_total` | counter | `kind` (timeout, connection, oom, reply) |
/// | `imagepipe_redis_skipped_total` | counter | `reason` (breaker_open, queue_full) |
/// | `imagepipe_redis_corrupt_values_total` | counter | — |
/// | `imagepipe_redis_breaker_openings_total` | counter | — |
/// | `imagepipe_redis_breaker_open` | gauge | `server` (host:port/db), `prefix` (the key prefix): one per cache |
/// | `imagepipe_redis_single_flight_total` | counter | `outcome` (claimed, waited, alone) |
/// | `imagepipe_redis_results_total` | counter | `outcome` (hit, miss, stored, too_large, store_failed) |
///
/// `imagepipe_redis_lookups_total` counts every lookup, of sources and of rendered results;
/// `imagepipe_redis_results_total` the results' alone (a miss includes a result another server
/// found too large to share).
///
/// Counters add up over every cache given the same factory; the breaker's gauge, a state, is each
/// cache's own (1 while open, 0 once a command succeeds).
public final class RedisCacheMetrics: Sendable {
    private let counters: [RedisCacheEvent: Counter]
    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        func counter(_ event: RedisCacheEvent) -> Counter {
            let (label, dimensions): (String, [(String, String)]) =
                switch event {
                case .hit: ("imagepipe_redis_lookups_total", [("result", "hit")])
                case .miss: ("imagepipe_redis_lookups_total", [("result", "miss")])
                case .store: ("imagepipe_redis_stores_total", [("result", "stored")])
                case .storeTooLarge: ("imagepipe_redis_stores_total", [("result", "too_large")])
                case .timeout: ("imagepipe_redis_errors_total", [("kind", "timeout")])
                case .connectionFault: ("imagepipe_redis_errors_total", [("kind", "connection")])
                case .outOfMemoryReply: ("imagepipe_redis_errors_total", [("kind", "oom")])
                case .errorReply: ("imagepipe_redis_errors_total", [("kind", "reply")])
                case .skippedBreakerOpen: ("imagepipe_redis_skipped_total", [("reason", "breaker_open")])
                case .skippedQueueFull: ("imagepipe_redis_skipped_total", [("reason", "queue_full")])
                case .corruptValue: ("imagepipe_redis_corrupt_values_total", [])
                case .breakerOpened: ("imagepipe_redis_breaker_openings_total", [])
                case .fetchClaimed: ("imagepipe_redis_single_flight_total", [("outcome", "claimed")])
                case .fetchWaited: ("imagepipe_redis_single_flight_total", [("outcome", "waited")])
                case .fetchAlone: ("imagepipe_redis_single_flight_total", [("outcome", "alone")])
                case .resultHit: ("imagepipe_redis_results_total", [("outcome", "hit")])
                case .resultMiss: ("imagepipe_redis_results_total", [("outcome", "miss")])
                case .resultStored: ("imagepipe_redis_results_total", [("outcome", "stored")])
                case .resultTooLarge: ("imagepipe_redis_results_total", [("outcome", "too_large")])
                case .resultStoreFailed: ("imagepipe_redis_results_total", [("outcome", "store_failed")])
                }
            return Counter(label: label, dimensions: dimensions, factory: factory)
        }
        counters = Dictionary(uniqueKeysWithValues: RedisCacheEvent.allCases.map { ($0, counter($0)) })
        self.factory = factory
    }

    func record(_ event: RedisCacheEvent) {
        counters[event]?.increment()
    }

    /// The breaker gauge of the cache configured by `configuration`, starting closed (0).
    func breakerGauge(for configuration: RedisCacheConfiguration) -> Gauge {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let gauge = Gauge(
            label: "imagepipe_redis_breaker_open",
            dimensions: [
                ("server", "\(host):\(configuration.port)/\(configuration.database)"), ("prefix", configuration.keyPrefix),
            ], factory: factory)
        gauge.record(0)
        return gauge
    }
}
