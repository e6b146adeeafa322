import Foundation
import TestSupport
import Testing

/// TIFF, BMP and ICO sources through the command line and `serve`: the tool registers both coders.
@Suite("imagepipe with TIFF, BMP and ICO sources")
struct CLITIFFBMPTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    static func fixture(_ suite: String, _ file: String) -> String { Corpus.root.appendingPathComponent("\(suite)/\(file)").path }

    @Test("info reads TIFF pages, a BMP and an icon's entries")
    func info() async throws {
        let run = try await cli.run([
            "info", "--json", Self.fixture("tiff", "multipage.tif"), Self.fixture("tiff", "orientation6.tif"), Self.fixture("bmp", "palette8.bmp"),
            Self.fixture("bmp", "icons-dib-png.ico"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.jsonLines
        #expect(lines.map { $0["format"] as? String } == ["tiff", "tiff", "bmp", "ico"])
        #expect(lines.map { $0["frames"] as? Int } == [3, 1, 1, 4])
        #expect(lines[1]["orientation"] as? Int == 6)
        #expect(lines[3]["width"] as? Int == 64 && lines[3]["hasAlpha"] as? Bool == true)
    }

    @Test("convert writes a TIFF page, a BMP and the largest icon entry as PNG and JPEG")
    func convert() async throws {
        let outputs = [
            (Self.fixture("tiff", "rgb8-tiled-jpeg.tif"), temp.path("tiled.jpg")), (Self.fixture("tiff", "orientation6.tif"), temp.path("upright.png")),
            (Self.fixture("bmp", "rgb24.bmp"), temp.path("bmp.png")), (Self.fixture("bmp", "icons-dib.ico"), temp.path("icon.png")),
        ]
        for (source, output) in outputs {
            let run = try await cli.run(["convert", source, output, "--frame", "0"])
            #expect(run.status == 0, "\(source): \(run.stderr)")
        }
        let info = try await cli.run(["info", "--json", temp.path("upright.png"), temp.path("icon.png")])
        #expect(info.jsonLines.map { $0["width"] as? Int } == [23, 48])
    }

    @Test("serve answers a TIFF, a BMP and an ICO source with an image, not 415")
    func serve() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        for (suite, file) in [("tiff", "rgb8-lzw.tif"), ("bmp", "palette4.bmp"), ("bmp", "icons-dib-png.ico")] {
            try FileManager.default.copyItem(atPath: Self.fixture(suite, file), toPath: root.appendingPathComponent(file).path)
        }
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--local-root", root.path, "--quiet"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        for file in ["rgb8-lzw.tif", "palette4.bmp", "icons-dib-png.ico"] {
            let output = try await runBlocking {
                try TestProcesses.run(
                    "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(port)/insecure/rs:fit:16:16/plain/local:///\(file)@png"])
            }
            #expect(String(decoding: output, as: UTF8.self) == "200 image/png", "\(file)")
        }
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }
}
