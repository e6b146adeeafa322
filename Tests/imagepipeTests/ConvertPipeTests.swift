import Foundation
import TestSupport
import Testing

/// `imagepipe convert` with `-`: standard input as the source, standard output as the result.
@Suite("convert - reads standard input and writes standard output")
struct ConvertPipeTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("cat photo.jpg | imagepipe convert - - --format png --thumbnail 32x32 writes a PNG to stdout")
    func pipeThrough() async throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Samples.jpeg))
        let png = try await runBlocking {
            try TestProcesses.run(CLIRunner.binary.path, ["convert", "-", "-", "--format", "png", "--thumbnail", "32x32"], input: jpeg)
        }
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // What came out is a 32-pixel-wide PNG, as `info` reads it back from a pipe too.
        let out = temp.path("piped.png")
        try png.write(to: URL(fileURLWithPath: out))
        let info = try await cli.run(["info", "--json", out])
        #expect((info.jsonLines.first?["width"] as? Int).map { $0 <= 32 } == true, "\(info.stdout)")
    }

    @Test("- as the source, a file as the result; --format overrides the extension")
    func stdinToFile() async throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Samples.jpeg))
        let out = temp.path("out.img")
        _ = try await runBlocking { try TestProcesses.run(CLIRunner.binary.path, ["convert", "-", out, "--format", "webp"], input: jpeg) }
        let written = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(written.starts(with: Array("RIFF".utf8)))
    }

    @Test("writing to - without --format, or with --json, is a usage error")
    func usage() async throws {
        let noFormat = try await cli.run(["convert", Samples.jpeg, "-"])
        #expect(noFormat.status == 2)
        #expect(noFormat.stderr.contains("writing to standard output (-) needs --format"), "\(noFormat.stderr)")
        let json = try await cli.run(["convert", Samples.jpeg, "-", "--format", "png", "--json"])
        #expect(json.status == 2)
        #expect(json.stderr.contains("--json and OUT -"), "\(json.stderr)")
        let badFormat = try await cli.run(["convert", Samples.jpeg, temp.path("x.png"), "--format", "tga"])
        #expect(badFormat.status == 2)
    }
}
