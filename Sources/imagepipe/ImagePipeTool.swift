import ArgumentParser
import Foundation

/// `imagepipe`: fetch, convert, inspect and cache images through the ImagePipe pipeline.
/// Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
@main
struct ImagePipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagepipe",
        abstract: "Fetch, convert, inspect and cache images through the ImagePipe pipeline.",
        discussion: """
            Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
            Transforms (--transform SPEC, repeatable, applied in order): `imagepipe transforms` lists them.
            """,
        version: ImagePipeVersion.current,
        subcommands: [FetchCommand.self, ConvertCommand.self, InfoCommand.self, CacheCommand.self, ServeCommand.self, TransformsCommand.self]
    )

    /// ArgumentParser's own `main`, with two differences the tool's contract asks for: `serve`
    /// takes its `IMAGEPIPE_…` (and imgproxy's `IMGPROXY_…`) variables, and bad usage exits 2
    /// (ArgumentParser's is 64), its message escaped where it quotes what the user typed.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if arguments.first == "serve" {
                arguments = ["serve"] + (try ServeEnvironment.arguments(Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
            }
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            let quoted = self.message(for: error)
            let shown = quoted.isEmpty ? message : message.replacingOccurrences(of: quoted, with: TerminalEscaping.escape(quoted))
            if !shown.isEmpty { FileHandle.standardError.write(Data((shown + "\n").utf8)) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

enum ImagePipeVersion {
    static let current = "0.1.0"
}
