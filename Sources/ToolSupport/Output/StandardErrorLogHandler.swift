import Foundation
import Logging
import PipelineCore

/// The records `serve` and `-v` log, one line each on standard error, as `--log-format` says:
/// - `text`: swift-log's `StreamLogHandler` layout (`TIME LEVEL LABEL: key=value … [SOURCE]
///   MESSAGE`), the time in UTC to the millisecond so requests a few milliseconds apart stay in
///   order and apart; message and metadata escaped for the terminal;
/// - `json`: one object per record, the fields a log pipeline expects first (`time`, `level`,
///   `label`, `source`, `message`), then the metadata by key (`request_id`, `method`, `path`,
///   `status`, `bytes`, `duration_ms`, `tier` for an access-log line), numbers as numbers.
///
/// Both redact the credentials of any URL in a record: the pipeline logs URLs, paths and reasons
/// that strangers choose.
package struct StandardErrorLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package let label: String
    package let format: LogFormat

    package init(label: String, logLevel: Logger.Level, format: LogFormat = .text) {
        self.label = label
        self.logLevel = logLevel
        self.format = format
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let line =
            switch format {
            case .text: textLine(event, fields: fields)
            case .json: jsonLine(event, fields: fields)
            }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private func textLine(_ event: LogEvent, fields: Logger.Metadata) -> String {
        var fields = fields
        if let error = event.error {
            // Spelled as swift-log's stream handler spells them, and escaped like the rest.
            fields["error.message"] = "\(error)"
            fields["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let pretty = fields.isEmpty ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.escape($0.value))" }.joined(separator: " ")
        return "\(Self.timestamp()) \(event.level) \(label):\(pretty) [\(event.source)] \(Self.escape(event.message.description))"
    }

    private func jsonLine(_ event: LogEvent, fields: Logger.Metadata) -> String {
        var line = JSONLine()
        line.add("time", Self.timestamp())
        line.add("level", event.level.rawValue)
        line.add("label", label)
        line.add("source", event.source)
        line.add("message", CredentialRedaction.redacting(event.message.description))
        var fields = fields
        // Hummingbird's own name for the request id, which the access log carries as `request_id`.
        if fields["request_id"] != nil { fields["hb.request.id"] = nil }
        if let error = event.error { fields["error"] = "\(error)" }
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line.add(key, Self.jsonValue(value))
        }
        return line.text
    }

    private static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func escape(_ text: String) -> String {
        TerminalEscaping.escape(CredentialRedaction.redacting(text))
    }

    private static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(escape(text))
        case .stringConvertible(let value): .string(escape(value.description))
        case .dictionary(let dictionary): .dictionary(dictionary.mapValues(escape))
        case .array(let array): .array(array.map(escape))
        }
    }

    private static func jsonValue(_ value: Logger.Metadata.Value) -> JSONLine.Value {
        switch value {
        case .stringConvertible(let number as Int): .int(number)
        case .stringConvertible(let number as Double): .double(number)
        case .string(let text): .string(CredentialRedaction.redacting(text))
        case .stringConvertible(let value): .string(CredentialRedaction.redacting(value.description))
        case .array(let values): .strings(values.map { CredentialRedaction.redacting($0.description) })
        case .dictionary: .string(CredentialRedaction.redacting(value.description))
        }
    }
}
