import ArgumentParser

/// `--log-format`: how log records are written to standard error.
package enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json
}
