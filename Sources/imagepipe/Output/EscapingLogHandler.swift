import Logging
import PipelineCore

/// Passes log records on with their message and metadata escaped for the terminal and the
/// credentials of any URL in them redacted: the pipeline logs URLs, paths and reasons that
/// strangers choose.
struct EscapingLogHandler: LogHandler {
    var base: any LogHandler

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue.mapValues(Self.escape) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue.map(Self.escape) }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(Self.escape(event.message.description))"
        var metadata = event.metadata ?? [:]
        if let error = event.error {
            // Spelled as the stream handler would, so its text is escaped too.
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
            event.error = nil
        }
        event.metadata = metadata.isEmpty ? event.metadata : metadata.mapValues(Self.escape)
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
