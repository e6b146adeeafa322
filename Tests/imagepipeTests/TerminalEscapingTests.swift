import Foundation
import Testing

@Suite("imagepipe escapes control characters on the terminal")
struct TerminalEscapingTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// A name that would forge a second error line and turn the terminal red.
    let forged = "x\nimagepipe: all good\u{1B}[31m\u{202E}.png"
    let escaped = "x\\nimagepipe: all good\\u{1B}[31m\\u{202E}.png"

    @Test("A failing source's name is one escaped line on stderr; --json keeps the name exact, its controls as \\u escapes")
    func failingSource() async throws {
        let run = try await cli.run(["fetch", "--no-cache", "--json", forged], in: temp.url)
        #expect(run.status == 1)
        let path = temp.url.standardizedFileURL.path + "/" + escaped
        #expect(run.stderr == "imagepipe: \(escaped): file error at '\(path)': no such file or directory\n")
        #expect(run.jsonLines.first?["source"] as? String == forged)
        #expect(run.stdout.contains("\\u001b[31m\\u202e.png") && !run.stdout.contains("\u{1B}") && !run.stdout.contains("\u{202E}"))
        let info = try await cli.run(["info", forged], in: temp.url)
        #expect(info.stderr == "imagepipe: \(escaped): file error at '\(path)': no such file or directory\n")
        let convert = try await cli.run(["convert", forged, "out.png"], in: temp.url)
        #expect(convert.stderr == "imagepipe: \(escaped): file error at '\(path)': no such file or directory\n")
    }

    @Test("info's text line on stdout escapes the source name")
    func infoText() async throws {
        let name = "a\u{1B}]0;title\u{07}.png"
        try FileManager.default.copyItem(atPath: Samples.png, toPath: temp.path(name))
        let run = try await cli.run(["info", name], in: temp.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "a\\u{1B}]0;title\\u{7}.png: png 320x240 rgba8\n")
    }

    @Test("A usage error quoting what was typed escapes it; the usage text keeps its lines")
    func usageError() async throws {
        let run = try await cli.run(["fetch", "a.png", "--option", "x\n\u{1B}[2J"])
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: unknown --option 'x\\n\\u{1B}[2J'; known: ") == true)
        #expect(lines.count == 3 && lines[1].hasPrefix("Usage: imagepipe fetch"))
    }

    @Test("A backslash is doubled, so an escape in a name can be told from an escaped character")
    func backslash() async throws {
        let run = try await cli.run(["info", "a\\nb.png"], in: temp.url)
        #expect(run.stderr.hasPrefix("imagepipe: a\\\\nb.png: "))
    }
}
