import CoreMetrics
import Synchronization

/// What a `RedisImageCache` has done since it was made: a snapshot for logs and health pages. The
/// same events go to swift-metrics through `RedisCacheMetrics`.
public struct RedisCacheStats: Sendable, Equatable {
    public var hits = 0
    public var misses = 0
    public var stores = 0
    /// Stores left to the local caches because the entry was larger than `maxEntryBytes`.
    public var storesTooLarge = 0
    /// Connect failures, timeouts, closed connections, error replies (`-OOM`, `-ERR`): the sum of
    /// the four kinds below.
    public var faults = 0
    /// Connects or commands over `connectTimeout` / `commandTimeout`.
    public var timeouts = 0
    /// Refused or failed connects and connections closed mid-command.
    public var connectionFaults = 0
    /// `-OOM` replies: the server is at `maxmemory` with an eviction policy that refuses writes.
    public var outOfMemoryReplies = 0
    /// Other error replies (`-LOADING`, `-BUSY`, `-NOAUTH`, a proxy's `-ERR`).
    public var errorReplies = 0
    /// Commands not sent because the breaker was open or the queue was full.
    public var skipped = 0
    /// Values under our keys that were not ours or were damaged; each answered as a miss.
    public var corruptValues = 0
    /// Times the circuit breaker opened.
    public var breakerOpenings = 0
    /// Single-flight: misses this cache took the fetch lock for.
    public var fetchesClaimed = 0
    /// Single-flight: misses answered by another holder's stored result after waiting.
    public var fetchesWaited = 0
    /// Single-flight: misses fetched without coordination (no answer within `lockMaxWait`, or
    /// Redis unavailable).
    public var fetchesAlone = 0

    public init() {}
}

/// One thing a `RedisImageCache` counts.
enum RedisCacheEvent: CaseIterable, Sendable {
    case hit, miss, store, storeTooLarge
    case timeout, connectionFault, outOfMemoryReply, errorReply
    case skippedBreakerOpen, skippedQueueFull, corruptValue, breakerOpened
    case fetchClaimed, fetchWaited, fetchAlone
    case resultHit, resultMiss, resultStored, resultTooLarge, resultStoreFailed

    /// The fault kind a failed command or connect counts as.
    static func fault(_ kind: RedisFaultKind) -> Self {
        switch kind {
        case .timeout: .timeout
        case .connection: .connectionFault
        case .outOfMemory: .outOfMemoryReply
        case .errorReply: .errorReply
        }
    }
}

/// Why a command failed.
enum RedisFaultKind: Sendable {
    case timeout, connection, outOfMemory, errorReply
}

/// The counters behind `RedisCacheStats` and `RedisCacheMetrics`, bumped from any thread.
final class RedisCacheCounters: Sendable {
    private let stats = Mutex(RedisCacheStats())
    let metrics: RedisCacheMetrics
    private let breakerOpen: Gauge

    init(metrics: RedisCacheMetrics, configuration: RedisCacheConfiguration) {
        self.metrics = metrics
        self.breakerOpen = metrics.breakerGauge(for: configuration)
    }

    /// The breaker's state: open (cooling down or probing) or closed.
    func recordBreaker(open: Bool) {
        breakerOpen.record(open ? 1 : 0)
    }

    func record(_ event: RedisCacheEvent) {
        stats.withLock { stats in
            switch event {
            case .hit: stats.hits += 1
            case .miss: stats.misses += 1
            case .store: stats.stores += 1
            case .storeTooLarge: stats.storesTooLarge += 1
            case .timeout:
                stats.timeouts += 1
                stats.faults += 1
            case .connectionFault:
                stats.connectionFaults += 1
                stats.faults += 1
            case .outOfMemoryReply:
                stats.outOfMemoryReplies += 1
                stats.faults += 1
            case .errorReply:
                stats.errorReplies += 1
                stats.faults += 1
            case .skippedBreakerOpen, .skippedQueueFull: stats.skipped += 1
            case .corruptValue: stats.corruptValues += 1
            case .breakerOpened: stats.breakerOpenings += 1
            case .fetchClaimed: stats.fetchesClaimed += 1
            case .fetchWaited: stats.fetchesWaited += 1
            case .fetchAlone: stats.fetchesAlone += 1
            case .resultHit, .resultMiss, .resultStored, .resultTooLarge, .resultStoreFailed: break
            }
        }
        metrics.record(event)
    }

    var snapshot: RedisCacheStats { stats.withLock { $0 } }
}
