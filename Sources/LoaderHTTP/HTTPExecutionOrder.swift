/// The order queued downloads start in (SDWebImage's `SDWebImageDownloaderExecutionOrder`).
public enum HTTPExecutionOrder: String, Sendable, Hashable {
    /// First queued, first started (the default).
    case fifo
    /// Last queued, first started: what a scrolling list wants.
    case lifo
}
