import ArgumentParser
import Foundation

/// The `main` of the tool's executables: ArgumentParser's own, with the two differences the tool's
/// contract asks for: bad usage exits 2 (ArgumentParser's is 64), and its message is escaped where
/// it quotes what the user typed.
package enum ToolMain {
    /// Parses `arguments()` as `Root`'s command line and runs the command; exits on an error.
    package static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: @Sendable () throws -> [String]) async {
        do {
            var command = try root.parseAsRoot(try arguments())
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = root.exitCode(for: error)
            let message = root.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            let quoted = root.message(for: error)
            let shown = quoted.isEmpty ? message : message.replacingOccurrences(of: quoted, with: TerminalEscaping.escape(quoted))
            if !shown.isEmpty { FileHandle.standardError.write(Data((shown + "\n").utf8)) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
