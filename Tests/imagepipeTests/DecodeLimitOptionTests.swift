import Foundation
import Testing

/// `--max-pixels` and `--max-decode-time`: a limit's error names the flag that raises it, and
/// the flag raises it, for `convert` (both paths), `fetch` and `info`.
@Suite("imagepipe decode limits")
struct DecodeLimitOptionTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test(
        "a source over --max-pixels is refused naming the flag; a higher --max-pixels lets it through",
        arguments: [
            ["convert", Samples.png, "OUT.png"], ["convert", Samples.png, "OUT.png", "--frame", "0"],
            ["fetch", Samples.png, "--no-cache", "-o", "OUT"], ["info", Samples.png],
        ] as [[String]])
    func maxPixels(_ command: [String]) async throws {
        let arguments = command.map { $0.replacingOccurrences(of: "OUT", with: temp.path("out")) }
        if command[0] == "fetch" { try FileManager.default.createDirectory(atPath: temp.path("out"), withIntermediateDirectories: true) }
        let refused = try await cli.run(arguments + ["--max-pixels", "100"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("pixels limit exceeded"), "\(refused.stderr)")
        #expect(refused.stderr.contains("raise --max-pixels if this is expected"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("ImageDecodeOptions"), "\(refused.stderr)")
        let allowed = try await cli.run(arguments + ["--max-pixels", "100000000", "--max-decode-time", "0"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test("--max-decode-time and --max-pixels take whole numbers in their ranges")
    func ranges() async throws {
        let time = try await cli.run(["convert", Samples.png, temp.path("out.png"), "--max-decode-time=-1"])
        #expect(time.status == 2)
        #expect(time.stderr.contains("expected a whole number from 0 to 86400"), "\(time.stderr)")
        let pixels = try await cli.run(["info", Samples.png, "--max-pixels", "0"])
        #expect(pixels.status == 2)
        #expect(pixels.stderr.contains("'--max-pixels <max-pixels>'"), "\(pixels.stderr)")
    }
}
