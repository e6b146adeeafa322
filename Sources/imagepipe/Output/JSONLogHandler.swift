import Foundation
import Logging
import PipelineCore

/// `--log-format json`: one JSON object per record on standard error, the fields a log pipeline
/// expects first (`time` in UTC with milliseconds, `level`, `label`, `source`, `message`), then the record's
/// metadata by key (`request_id`, `method`, `path`, `status`, `bytes`, `duration_ms`, `tier` for an
/// access-log line), numbers as numbers. URL credentials are redacted as in the text format.
struct JSONLogHandler: LogHandler {
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
        var line = JSONLine()
        line.add("time", Self.timestamp(Date()))
        line.add("level", event.level.rawValue)
        line.add("label", label)
        line.add("source", event.source)
        line.add("message", CredentialRedaction.redacting(event.message.description))
        var fields = metadata.merging(event.metadata ?? [:]) { $1 }
        // Hummingbird's own name for the request id, which the access log carries as `request_id`.
        if fields["request_id"] != nil { fields["hb.request.id"] = nil }
        if let error = event.error { fields["error"] = "\(error)" }
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line.add(key, Self.value(value))
        }
        FileHandle.standardError.write(Data((line.text + "\n").utf8))
    }

    private static func value(_ value: Logger.Metadata.Value) -> JSONLine.Value {
        switch value {
        case .stringConvertible(let number as Int): .int(number)
        case .stringConvertible(let number as Double): .double(number)
        case .string(let text): .string(CredentialRedaction.redacting(text))
        case .stringConvertible(let value): .string(CredentialRedaction.redacting(value.description))
        case .array(let values): .strings(values.map { CredentialRedaction.redacting($0.description) })
        case .dictionary: .string(CredentialRedaction.redacting(value.description))
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
