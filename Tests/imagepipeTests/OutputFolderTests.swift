import Foundation
import PipelineConformance
import Testing

@Suite("imagepipe output files")
struct OutputFolderTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// Three different PNGs named `x/a.png`, `y/a.png`, `z/a-2.png`, with their bytes.
    func sameNamedSources() async throws -> [(path: String, bytes: Data)] {
        for folder in ["x", "y", "z"] {
            try FileManager.default.createDirectory(atPath: temp.path(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Samples.png, toPath: temp.path("x/a.png"))
        for (input, output) in [(Samples.jpeg, "y/a.png"), (Samples.webp, "z/a-2.png")] {
            let run = try await cli.run(["convert", input, temp.path(output), "--thumbnail", "32x32"])
            try #require(run.status == 0, "\(run.stderr)")
        }
        return try ["x/a.png", "y/a.png", "z/a-2.png"].map { (temp.path($0), try Data(contentsOf: URL(fileURLWithPath: temp.path($0)))) }
    }

    @Test("Sources sharing a name never overwrite each other: x/a.png y/a.png z/a-2.png give a.png, a-3.png, a-2.png, and a second run replaces the same three")
    func sameNames() async throws {
        let sources = try await sameNamedSources()
        let out = temp.path("out")
        for _ in 1...2 {
            let run = try await cli.run(["fetch", "-o", out, "--no-cache", "--json"] + sources.map(\.path))
            #expect(run.status == 0, "\(run.stderr)")
            let outputs = Dictionary(uniqueKeysWithValues: run.jsonLines.map { ($0["source"] as! String, $0["output"] as? String) })
            #expect(outputs == [sources[0].path: out + "/a.png", sources[1].path: out + "/a-3.png", sources[2].path: out + "/a-2.png"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a-2.png", "a-3.png", "a.png"])
            for (source, name) in zip(sources, ["a.png", "a-3.png", "a-2.png"]) {
                #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)) == source.bytes, "\(name)")
            }
        }
    }

    @Test("Output paths with doubled slashes before a non-ASCII name are judged by their extension, not a crash")
    func doubledSlashesInOutputPath() async throws {
        try FileManager.default.createDirectory(atPath: temp.path("out"), withIntermediateDirectories: true)
        let written = try await cli.run(["convert", Samples.png, temp.path("out") + "//é.png"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(FileManager.default.fileExists(atPath: temp.path("out/é.png")))
        let noExtension = try await cli.run(["convert", Samples.png, temp.path("out") + "//é"])
        #expect(noExtension.status == 2, "\(noExtension.stderr)")
        #expect(noExtension.stderr.contains("OUT must end in .png"), "\(noExtension.stderr)")
    }

    @Test("A file someone else makes in the output folder while the run goes on is kept; the output takes a-2")
    func fileMadeMeanwhileIsKept() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let out = temp.path("out")
        let theirs = Data("someone else's file".utf8)
        let body = try Data(contentsOf: URL(fileURLWithPath: Samples.png))
        server.route("/img/a.png") { _, connection in
            // The run has looked at its folder by now: this file is not one of its earlier outputs.
            try? theirs.write(to: URL(fileURLWithPath: out + "/a.png"))
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: body)
        }
        let run = try await cli.run(["fetch", "-o", out, "--no-cache", "--json", server.url("/img/a.png").absoluteString])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.first?["output"] as? String == out + "/a-2.png")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/a.png")) == theirs)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/a-2.png")) == body)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a-2.png", "a.png"])
    }

    @Test("convert into a folder that does not exist says so, naming the folder as given, and writes nothing")
    func convertIntoMissingFolder() async throws {
        let run = try await cli.run(["convert", Samples.png, "nope/b/c.png"], in: temp.url)
        #expect(run.status == 1)
        #expect(run.stderr == "imagepipe: \(Samples.png): output folder 'nope/b' does not exist\n")
        #expect(temp.files == [])
    }

    @Test("fetch -o creates a missing folder, and names a file in the way")
    func fetchOutputFolder() async throws {
        let created = try await cli.run(["fetch", "-o", "new/deeper", "--no-cache", Samples.png], in: temp.url)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: temp.path("new/deeper/badge.png")))
        try Data("x".utf8).write(to: temp.url.appendingPathComponent("file"))
        let onFile = try await cli.run(["fetch", "-o", "file", "--no-cache", Samples.png], in: temp.url)
        #expect(onFile.status == 1)
        #expect(onFile.stderr == "imagepipe: output folder 'file' is not a folder\n")
        let underFile = try await cli.run(["fetch", "-o", "file/sub", "--no-cache", Samples.png], in: temp.url)
        #expect(underFile.status == 1)
        #expect(underFile.stderr == "imagepipe: cannot create output folder 'file/sub': Not a directory\n")
        #expect(try Data(contentsOf: temp.url.appendingPathComponent("file")) == Data("x".utf8))
    }
}
