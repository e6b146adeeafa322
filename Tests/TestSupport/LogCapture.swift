import Logging
import Synchronization

/// A log handler that keeps what it is given, for tests of what the library logs.
public final class LogCapture: Sendable {
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
    }

    private let stored = Mutex<[Entry]>([])
    public var entries: [Entry] { stored.withLock { $0 } }

    public init() {}

    /// A logger at `.trace` whose entries land here.
    public var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    fileprivate func append(_ entry: Entry) { stored.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append(
                Entry(
                    level: event.level, message: event.message.description,
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}
