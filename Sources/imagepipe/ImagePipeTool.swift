import ArgumentParser
import Foundation

/// `imagepipe`: fetch, convert, inspect and cache images through the ImagePipe pipeline.
/// Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
struct ImagePipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagepipe",
        abstract: "Fetch, convert, inspect and cache images through the ImagePipe pipeline.",
        discussion: """
            Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
            Transforms (--transform SPEC, repeatable, applied in order):
            \(TransformSpecHelp.text)
            """,
        version: ImagePipeVersion.current,
        subcommands: [FetchCommand.self, ConvertCommand.self, InfoCommand.self, CacheCommand.self, ServeCommand.self]
    )
}

enum ImagePipeVersion {
    static let current = "0.1.0"
}

@main
enum ImagePipeTool {
    static func main() async {
        do {
            var command = try ImagePipeCommand.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = ImagePipeCommand.exitCode(for: error)
            let message = ImagePipeCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                exit(0)
            }
            // The usage text's own line breaks stay; what the user typed, quoted in the error, is escaped.
            let quoted = ImagePipeCommand.message(for: error)
            let shown = quoted.isEmpty ? message : message.replacingOccurrences(of: quoted, with: TerminalEscaping.escape(quoted))
            if !shown.isEmpty { FileHandle.standardError.write(Data((shown + "\n").utf8)) }
            // ArgumentParser reports usage errors as EX_USAGE (64); the contract says 2.
            exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
