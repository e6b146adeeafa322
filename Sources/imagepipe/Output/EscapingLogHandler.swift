import Logging
import PipelineCore

/// Passes log records on with their message and metadata escaped for the terminal and the
/// credentials of any URL in them redacted: the pipeline logs URLs, paths and reasons that
/// strangers choose.
struct EscapingLogHandler: LogHandler {
    var base: any LogHandler
    /// The logger's own metadata as set, escaped only when a record is written: a request sets
    /// its id on every request, most of which log nothing.
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(Self.escape(event.message.description))"
        var merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if let error = event.error {
            // Spelled as the stream handler would, so its text is escaped too.
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
            event.error = nil
        }
        event.metadata = merged.isEmpty ? nil : merged.mapValues(Self.escape)
        base.log(event: event)
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
}
