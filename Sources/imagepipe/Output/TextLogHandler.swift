import Foundation
import Logging

/// `--log-format text`: swift-log's `StreamLogHandler` layout on standard error
/// (`TIME LEVEL LABEL: key=value … [SOURCE] MESSAGE`), with the time in UTC to the millisecond,
/// as the JSON format has it: requests a few milliseconds apart stay in order and apart.
struct TextLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let pretty = fields.isEmpty ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        FileHandle.standardError.write(Data("\(time) \(event.level) \(label):\(pretty) [\(event.source)] \(event.message)\n".utf8))
    }
}
