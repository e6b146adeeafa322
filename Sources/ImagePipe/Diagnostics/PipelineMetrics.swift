import CoreMetrics
import Foundation
import PipelineCore
import Synchronization

/// The pipeline's counters and timers through swift-metrics, for dashboards and alerts: cache hits
/// and misses, loads and their bytes, joins of work in flight, decode/transform/encode durations and
/// failures by kind. `ImageManager.Settings.metrics` and `DiskCache.Configuration.metrics` take one.
///
/// The metrics go to the factory given, by default the one `MetricsSystem.bootstrap` installed
/// (swift-metrics' no-op until an application bootstraps one): bootstrap before the first manager or
/// cache is made, since the counters are created with it. Labels follow Prometheus' conventions:
///
/// | Label | Kind | Dimensions |
/// |---|---|---|
/// | `imagepipe_cache_lookups_total` | counter | `tier` (memory, disk), `result` (hit, miss) |
/// | `imagepipe_loads_total` | counter | — (one per loader call; joiners share it) |
/// | `imagepipe_loaded_bytes_total` | counter | — |
/// | `imagepipe_coalesced_joins_total` | counter | `stage` (download, decode, transform) |
/// | `imagepipe_decode_duration_seconds` | timer | `source` (loader, disk) |
/// | `imagepipe_transform_duration_seconds` | timer | — |
/// | `imagepipe_encode_duration_seconds` | timer | — |
/// | `imagepipe_failures_total` | counter | `error` (`ImagePipeError.kind`) |
/// | `imagepipe_cache_store_failures_total` | counter | `reason` (encode, write) |
public final class PipelineMetrics: Sendable {
    /// Metrics through `MetricsSystem.factory`, made on first use.
    public static let system = PipelineMetrics()

    let factory: any MetricsFactory
    /// The factory is swift-metrics' no-op one: counting into it changes nothing, so a memory hit
    /// may skip it.
    package let recordsNothing: Bool
    package let memoryHits: Counter
    package let memoryMisses: Counter
    package let diskHits: Counter
    package let diskMisses: Counter
    package let loads: Counter
    package let loadedBytes: Counter
    package let downloadJoins: Counter
    package let decodeJoins: Counter
    package let transformJoins: Counter
    package let loaderDecodeDuration: CoreMetrics.Timer
    package let diskDecodeDuration: CoreMetrics.Timer
    package let transformDuration: CoreMetrics.Timer
    package let encodeDuration: CoreMetrics.Timer
    package let encodeStoreFailures: Counter
    package let writeStoreFailures: Counter
    /// One counter per error kind, made when the kind first fails (kinds are a small, fixed set:
    /// cases, limit names and loader failure names).
    private let failures = Mutex<[String: Counter]>([:])

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        recordsNothing = factory is NOOPMetricsHandler
        func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
            Counter(label: label, dimensions: dimensions, factory: factory)
        }
        func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
        }
        memoryHits = counter("imagepipe_cache_lookups_total", [("tier", "memory"), ("result", "hit")])
        memoryMisses = counter("imagepipe_cache_lookups_total", [("tier", "memory"), ("result", "miss")])
        diskHits = counter("imagepipe_cache_lookups_total", [("tier", "disk"), ("result", "hit")])
        diskMisses = counter("imagepipe_cache_lookups_total", [("tier", "disk"), ("result", "miss")])
        loads = counter("imagepipe_loads_total")
        loadedBytes = counter("imagepipe_loaded_bytes_total")
        downloadJoins = counter("imagepipe_coalesced_joins_total", [("stage", "download")])
        decodeJoins = counter("imagepipe_coalesced_joins_total", [("stage", "decode")])
        transformJoins = counter("imagepipe_coalesced_joins_total", [("stage", "transform")])
        loaderDecodeDuration = timer("imagepipe_decode_duration_seconds", [("source", "loader")])
        diskDecodeDuration = timer("imagepipe_decode_duration_seconds", [("source", "disk")])
        transformDuration = timer("imagepipe_transform_duration_seconds")
        encodeDuration = timer("imagepipe_encode_duration_seconds")
        encodeStoreFailures = counter("imagepipe_cache_store_failures_total", [("reason", "encode")])
        writeStoreFailures = counter("imagepipe_cache_store_failures_total", [("reason", "write")])
    }

    /// Counts a request that failed with `error`.
    package func recordFailure(_ error: ImagePipeError) {
        let kind = error.kind
        let counter = failures.withLock { counters in
            if let counter = counters[kind] { return counter }
            let counter = Counter(label: "imagepipe_failures_total", dimensions: [("error", kind)], factory: factory)
            counters[kind] = counter
            return counter
        }
        counter.increment()
    }

    /// Runs `work`, recording its duration on `timer` (a failed run too).
    package static func time<T>(_ timer: CoreMetrics.Timer, _ work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { timer.recordNanoseconds((ContinuousClock.now - start).nanoseconds) }
        return try work()
    }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
