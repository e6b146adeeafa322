import Foundation
import ImagePipe
import PipelineCore
import TestSupport
import Testing

@testable import imagepipe

/// The root command's help lists every transform spelling, built only for runs that can show it.
@Suite("imagepipe root help")
struct RootHelpTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("imagepipe, --help and help list every built-in transform with its parameters", arguments: [[], ["--help"], ["help"]])
    func listsTransforms(arguments: [String]) async throws {
        let run = try await cli.run(arguments)
        let text = run.stdout + run.stderr
        #expect(text.contains("Transforms (--transform SPEC, repeatable, applied in order):"), "\(arguments)")
        // The help wraps long parameter lines at 80 columns; every spelling starts a line of its own.
        let lines = Set(text.split(separator: "\n").map(String.init))
        for usage in TransformerSpec.builtIn.spellings.map(\.usage) { #expect(lines.contains(usage), "\(arguments): \(usage)") }
        #expect(text.contains("    WxH: size in pixels, sides 1 to 10000000"), "\(arguments)")
        #expect(text.contains("SUBCOMMANDS:") && text.contains("fetch"), "\(arguments)")
    }

    @Test("A subcommand's help and usage errors are its own, without the transform list")
    func subcommandHelp() async throws {
        let help = try await cli.run(["fetch", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: imagepipe fetch") && help.stdout.contains("--thumbnail"))
        #expect(!help.stdout.contains("Transforms (--transform SPEC"))
        let usage = try await cli.run(["fetch"])
        #expect(usage.status == 2 && usage.stderr.contains("imagepipe fetch"))
    }

    @Test("The experimental help dump keeps the transform list")
    func dumpKeepsTransforms() async throws {
        let run = try await cli.run(["--experimental-dump-help"])
        #expect(run.status == 0)
        // The dump is JSON: the list's line breaks are escaped in it.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let command = try #require(json["command"] as? [String: Any])
        #expect((command["discussion"] as? String)?.contains(TransformerSpec.builtIn.help) == true)
    }

    /// Given, not read from the commands: reading them registers plugins in this test process's
    /// shared registries, which other suites running alongside decode through.
    static let subcommands = ["fetch", "convert", "info", "cache", "serve"]

    @Test(
        "Runs the root help may show",
        arguments: [
            ["imagepipe"], ["imagepipe", "--help"], ["imagepipe", "-h"], ["imagepipe", "help", "fetch"], ["imagepipe", "frobnicate"],
            ["imagepipe", "--version"], ["imagepipe", "fetch", "--experimental-dump-help"],
            ["imagepipe", "fetch", "--generate-completion-script", "bash"], ["imagepipe", "fetch", "--generate-completion-script=zsh"],
        ])
    func mayShow(arguments: [String]) {
        #expect(RootHelp.mayShow(arguments: arguments, subcommands: Self.subcommands))
    }

    @Test(
        "Runs of a subcommand skip it",
        arguments: [
            ["imagepipe", "fetch", "a.jpg", "-o", "out"], ["imagepipe", "convert", "--help"], ["imagepipe", "info", "a.png"],
            ["imagepipe", "cache", "clear"], ["imagepipe", "serve"],
        ])
    func skips(arguments: [String]) {
        #expect(!RootHelp.mayShow(arguments: arguments, subcommands: Self.subcommands))
    }
}
