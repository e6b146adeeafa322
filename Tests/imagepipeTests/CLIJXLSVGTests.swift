import Foundation
import TestSupport
import Testing

/// JPEG XL and SVG through the command line: `--format jxl`, `.jxl` outputs, `info` on both, and the
/// bombs each format invites, run in a child process whose time and peak memory are measured.
@Suite("imagepipe with JPEG XL and SVG", .dedicatedThreads)
struct CLIJXLSVGTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// The issue's bound for every bomb: refused or done within 10 s and 512 MiB.
    static let peakLimit = 512 << 20

    @Test("convert writes .jxl, keeping an animation animated; info reads it back")
    func convertToJXL() async throws {
        let still = temp.path("badge.jxl"), animated = temp.path("spinner.jxl")
        let runs = [try await cli.run(["convert", Samples.png, still, "--json"]), try await cli.run(["convert", Samples.gif, animated, "--json"])]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        let info = try await cli.run(["info", "--json", still, animated])
        let lines = info.jsonLines
        #expect(lines.count == 2 && lines.allSatisfy { $0["format"] as? String == "jxl" }, "\(info.stdout)")
        #expect(lines[0]["hasAlpha"] as? Bool == true && lines[1]["frames"] as? Int == 12)
    }

    @Test("fetch --format jxl writes name.jxl with a thumbnail's size")
    func fetchAsJXL() async throws {
        let run = try await cli.run(["fetch", Samples.jpeg, "-o", temp.path("out"), "--format", "jxl", "--thumbnail", "64x64", "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.jsonLines.first)
        #expect(line["format"] as? String == "jxl" && (line["output"] as? String)?.hasSuffix("photo.jxl") == true)
        #expect(line["width"] as? Int == 64)
    }

    @Test("an SVG converts to PNG at a thumbnail's size; info reads its size")
    func svg() async throws {
        let svg = temp.path("logo.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="400" height="100" fill="red"/></svg>"#.utf8)
            .write(to: URL(fileURLWithPath: svg))
        let info = try await cli.run(["info", "--json", svg])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.jsonLines.first?["format"] as? String == "svg" && info.jsonLines.first?["width"] as? Int == 400)
        let png = temp.path("logo.png")
        let run = try await cli.run(["convert", svg, png, "--thumbnail", "50x50", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.first?["width"] as? Int == 50 && run.jsonLines.first?["height"] as? Int == 25)
        #expect(try await cli.run(["convert", svg, temp.path("logo.svg.svg")]).status == 2)
    }

    /// A run of the tool, its peak memory, and how long the child process took (from its start to
    /// its end, not counting the wait for a thread to start it on while other tests run).
    func measured(_ arguments: [String]) async throws -> (CLIRunner.MeasuredRun, Duration) {
        let environment = cli.environment
        return try await runBlocking {
            let start = ContinuousClock.now
            let child = try TestProcesses.runMeasuringPeakMemory(CLIRunner.binary.path, arguments, environment: environment)
            let elapsed = ContinuousClock.now - start
            let run = CLIRunner.Run(status: child.exitStatus ?? 128 + (child.signal ?? 0), stdout: child.standardOutput, stderr: child.standardError)
            return (CLIRunner.MeasuredRun(run: run, peakBytes: child.maxResidentBytes), elapsed)
        }
    }

    @Test("a 1-gigapixel JPEG XL of a few bytes is refused on maxPixels, within 10 s and 512 MiB, nothing on stderr but the error")
    func gigapixelJXL() async throws {
        let path = temp.path("bomb.jxl")
        // The size header (two 30-bit sizes: 32,768 x 32,768) and all-default metadata.
        try Data([0xFF, 0x0A, 0xFE, 0xFF, 0x03, 0x00, 0xF0, 0xFF, 0x1F, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00]).write(to: URL(fileURLWithPath: path))
        for arguments in [["info", path], ["convert", "--thumbnail", "64x64", path, temp.path("bomb.png")]] {
            let (result, elapsed) = try await measured(arguments)
            #expect(result.run.status == 1, "\(result.run.stderr)")
            #expect(result.run.stderr.contains("raise --max-pixels"), "\(result.run.stderr)")
            #expect(!result.run.stderr.contains("lib/jxl"), "libjxl printed: \(result.run.stderr)")
            #expect(elapsed < .seconds(10) && result.peakBytes < Self.peakLimit, "\(elapsed), \(result.peakMiB) MiB")
        }
    }

    @Test("a corrupt JPEG XL fails with our error alone: libjxl's own messages stay off stderr")
    func corruptJXLIsQuiet() async throws {
        let good = temp.path("good.jxl")
        #expect(try await cli.run(["convert", Samples.jpeg, good]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        for index in stride(from: bytes.count / 3, to: bytes.count, by: 7) { bytes[index] ^= 0x5A }
        let corrupt = temp.path("corrupt.jxl")
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        let run = try await cli.run(["convert", corrupt, temp.path("corrupt.png")])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("lib/jxl") && !run.stderr.contains(".cc:"), "libjxl printed: \(run.stderr)")
    }

    @Test(
        "SVG bombs (a billion laughs, 10^6 elements, a 10^5 px canvas) are refused or bounded within 10 s and 512 MiB, naming the limit",
        arguments: ["laughs", "elements", "canvas"])
    func svgBombs(_ kind: String) async throws {
        let path = temp.path("\(kind).svg")
        let document: String
        switch kind {
        case "laughs":
            var entities = #"<!ENTITY lol0 "lol">"#
            for level in 1...10 { entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">" }
            document = #"<?xml version="1.0"?><!DOCTYPE svg ["# + entities + #"]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&lol10;</text></svg>"#
        case "elements":
            document = #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">"# + String(repeating: "<g/>", count: 1_000_000) + "</svg>"
        default:
            document = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="9" height="9"/></svg>"#
        }
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        let (result, elapsed) = try await measured(["convert", path, temp.path("\(kind).png")])
        #expect(result.run.status == 1, "\(result.run.stderr)")
        let named = ["laughs": "SVG: ", "elements": "SVGCoder.maxElements", "canvas": "raise --max-pixels"][kind]!
        #expect(result.run.stderr.contains(named), "\(result.run.stderr)")
        #expect(elapsed < .seconds(10) && result.peakBytes < Self.peakLimit, "\(kind): \(elapsed), \(result.peakMiB) MiB")
    }
}

/// `imagepipe serve` with the tool's coders: `f:jxl` writes JPEG XL; `f:svg` answers an SVG source
/// with its own bytes and refuses any other source.
@Suite("imagepipe serve with JPEG XL and SVG")
struct ServeJXLSVGTests {
    @Test("f:jxl is JPEG XL; f:svg passes an SVG through unchanged and refuses a PNG with 422")
    func formats() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="10" fill="red"/></svg>"#.utf8)
        try svg.write(to: root.appendingPathComponent("logo.svg"))
        try FileManager.default.copyItem(atPath: Samples.png, toPath: root.appendingPathComponent("a.png").path)
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--local-root", root.path, "--quiet"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        func get(_ path: String) async throws -> (status: String, type: String, body: Data) {
            let body = root.appendingPathComponent("body-\(UUID().uuidString)")
            let output = try await runBlocking {
                try TestProcesses.run(
                    "/usr/bin/curl", ["-s", "-o", body.path, "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(port)/insecure/\(path)"])
            }
            let parts = String(decoding: output, as: UTF8.self).split(separator: " ", maxSplits: 1).map(String.init)
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "", (try? Data(contentsOf: body)) ?? Data())
        }
        let jxl = try await get("w:16/f:jxl/plain/local:///a.png")
        #expect(jxl.status == "200" && jxl.type == "image/jxl" && jxl.body.starts(with: [0xFF, 0x0A]), "\(jxl.status) \(jxl.type)")
        let passed = try await get("w:16/f:svg/plain/local:///logo.svg")
        #expect(passed.status == "200" && passed.type == "image/svg+xml" && passed.body == svg, "\(passed.status) \(passed.type)")
        let drawn = try await get("w:16/f:png/plain/local:///logo.svg")
        #expect(drawn.status == "200" && drawn.type == "image/png")
        #expect(try await get("w:16/f:svg/plain/local:///a.png").status == "422")
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    @Test("--auto-jxl answers JPEG XL to an Accept naming it, before AVIF and WebP; without it, AVIF as imgproxy prefers")
    func autoJXL() async throws {
        for (arguments, expected) in [(["--auto-jxl"], "image/jxl"), ([], "image/avif")] {
            let server = try ServeProcess(
                ["--port", "0", "--allow-unsigned", "--local-root", (Samples.png as NSString).deletingLastPathComponent, "--quiet"] + arguments)
            let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
            let output = try await runBlocking {
                try TestProcesses.run(
                    "/usr/bin/curl",
                    ["-s", "-o", "/dev/null", "-w", "%{content_type}", "-H", "Accept: image/jxl,image/webp,image/avif", "http://127.0.0.1:\(port)/insecure/w:8/plain/local:///badge.png"])
            }
            #expect(String(decoding: output, as: UTF8.self) == expected)
            server.signal(SIGTERM)
            #expect(try await server.exitStatus() == 0)
        }
    }
}
