import Foundation
import TestSupport
import Testing

/// `imagepipe fetch …` is parsed by the fetch command alone; what a user sees must be what the
/// root's parse gives: the same results, the same errors and usage, `help` still a source.
@Suite("imagepipe fetch parsed without the root")
struct DirectParseTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("A fetch with flags of every option group writes what it was asked for")
    func fetchWithOptionGroups() async throws {
        let out = temp.path("out")
        let run = try await cli.run([
            "fetch", Samples.jpeg, "-o", out, "--thumbnail", "32x32", "--format", "png", "--no-cache", "--concurrency", "1",
            "--fail-on-warning", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.jsonLines.first)
        #expect(line["format"] as? String == "png")
        #expect((line["width"] as? Int).map { $0 <= 32 } == true && (line["height"] as? Int).map { $0 <= 32 } == true)
    }

    @Test("After fetch, `help` is a source, as with the root's parse")
    func helpIsASource() async throws {
        let run = try await cli.run(["fetch", "help", "-o", temp.path("out"), "--no-cache"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("imagepipe: help:"))
        #expect(!run.stdout.contains("USAGE"))
    }

    @Test("--version after fetch prints the version, as with the root's parse")
    func version() async throws {
        let run = try await cli.run(["fetch", "a.png", "--version"])
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
    }

    @Test(
        "Usage errors name imagepipe fetch and exit with status 2",
        arguments: [
            ["fetch", "a.png", "--bogus"], ["fetch", "a.png", "-o"], ["fetch", "a.png", "--concurrency", "0"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let run = try await cli.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("imagepipe fetch"), "\(arguments): \(run.stderr)")
    }
}
