import Logging

/// Prints what the library logs as the tool's own lines on standard error, one per record:
/// `imagepipe: warning: MESSAGE (key: value, …)`. The caches report through it what they could
/// not do but carried on without (a failed store), so the command still succeeds. Keys and
/// messages carry URLs and paths strangers choose: `Console.err` escapes control characters, so a
/// record stays one line and cannot drive the terminal.
package struct ToolLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]

    package init(logLevel: Logger.Level = .warning) {
        self.logLevel = logLevel
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        Console.err(
            Self.line(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    package static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "imagepipe: \(level.rawValue): \(message)"
        if !metadata.isEmpty {
            line += " (" + metadata.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
        }
        return line
    }
}
