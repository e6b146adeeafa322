import ArgumentParser
import Foundation
import ToolSupport

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
        subcommands: [FetchCommand.self, ConvertCommand.self, InfoCommand.self, CacheCommand.self, ServeExecutable.self, TransformsCommand.self]
    )

    /// ArgumentParser's `main` (see `ToolMain`); `serve` and `help serve` go to the service's
    /// executable before anything is parsed.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let serveArguments = ServeExecutable.arguments(for: arguments) { ServeExecutable.exec(serveArguments) }
        await ToolMain.run(Self.self) { arguments }
    }
}

enum ImagePipeVersion {
    static let current = "0.1.0"
}
