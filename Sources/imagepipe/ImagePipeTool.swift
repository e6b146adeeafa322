import ArgumentParser
import Foundation

/// `imagepipe`: fetch, convert, inspect and cache images through the ImagePipe pipeline.
/// Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
struct ImagePipeCommand: AsyncParsableCommand {
    /// ArgumentParser reads the configuration of every command on each run; the transform list in
    /// the discussion costs about half a millisecond to build, so runs that cannot show it skip it.
    static var configuration: CommandConfiguration { showsHelp ? withHelp : withoutHelp }

    private static let showsHelp = RootHelp.mayShow(arguments: CommandLine.arguments)

    private static let withHelp = configuration(
        discussion: """
            Exit status: 0 when every source succeeded, 1 when any failed, 2 on bad usage.
            Transforms (--transform SPEC, repeatable, applied in order):
            \(TransformSpecHelp.text)
            """)

    static let withoutHelp = configuration(discussion: "")

    private static func configuration(discussion: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "imagepipe",
            abstract: "Fetch, convert, inspect and cache images through the ImagePipe pipeline.",
            discussion: discussion,
            version: ImagePipeVersion.current,
            subcommands: [FetchCommand.self, ConvertCommand.self, InfoCommand.self, CacheCommand.self, ServeCommand.self]
        )
    }
}

/// When the root command's help (its usage, discussion and subcommand list) can be printed.
enum RootHelp {
    /// False only for a run whose first argument names a subcommand and that asks for no help dump
    /// or completion script: ArgumentParser then prints that subcommand's help and errors alone.
    /// `imagepipe`, `imagepipe --help`, `imagepipe help …` and anything unknown keep the root's.
    /// `subcommands` defaults to the root's (reading them registers the built-in plugins).
    static func mayShow(arguments: [String], subcommands: [String]? = nil) -> Bool {
        let names = subcommands ?? ImagePipeCommand.withoutHelp.subcommands.compactMap { $0.configuration.commandName }
        guard let first = arguments.dropFirst().first, names.contains(first) else { return true }
        return arguments.contains { $0 == "--experimental-dump-help" || $0.hasPrefix("--generate-completion-script") }
    }
}

/// `imagepipe fetch …` parsed by `FetchCommand` alone, through the same definitions: the root's
/// tree (every subcommand's configuration, the plugins their help texts list) is never built, about
/// half a millisecond of each `fetch` process. Only runs the root would parse the same way take it:
/// no help, version, dump or completion request, and no `help` argument (ArgumentParser adds `help`
/// as a subcommand of whatever it parses as the root). A run that fails here is parsed again from
/// the root, whose errors and usage are the ones shown.
enum DirectParse {
    private static let rootOnly = ["help", "-h", "-help", "--help", "--version", "--experimental-dump-help"]

    static func fetch(arguments: [String]) -> FetchCommand? {
        guard arguments.count > 2, arguments[1] == "fetch" else { return nil }
        let rest = Array(arguments.dropFirst(2))
        let asksRoot = rest.contains { rootOnly.contains($0) || $0.hasPrefix("--generate-completion-script") || $0.hasPrefix("---") }
        guard !asksRoot else { return nil }
        return (try? FetchCommand.parseAsRoot(rest)) as? FetchCommand
    }
}

enum ImagePipeVersion {
    static let current = "0.1.0"
}

@main
enum ImagePipeTool {
    static func main() async {
        do {
            if let fetch = DirectParse.fetch(arguments: CommandLine.arguments) {
                try await fetch.run()
                return
            }
            var command = try ImagePipeCommand.parseAsRoot()
            // `fetch` by its type: a cast to a protocol searches every conformance record of the
            // program on its first use, a cost each short-lived `fetch` process would pay.
            if let fetch = command as? FetchCommand {
                try await fetch.run()
            } else if var asyncCommand = command as? AsyncParsableCommand {
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
