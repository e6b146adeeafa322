import Foundation
import PipelineConformance
import TestSupport
import Testing

@Suite("imagepipe command line")
struct CLITests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("info --json reports format, stored size, frames, loops, clamped durations, orientation, alpha and pixel format")
    func info() async throws {
        let run = try await cli.run(["info", "--json", Samples.png, Samples.jpeg, Samples.gif])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.jsonLines
        #expect(lines.count == 3)
        let keys: Set = ["source", "format", "width", "height", "frames", "loopCount", "durationsMs", "orientation", "hasAlpha", "pixelFormat", "colorModel", "iccProfile", "hasExif", "hasXmp", "warnings"]
        for line in lines { #expect(Set(line.keys) == keys) }
        #expect(lines.allSatisfy { ($0["warnings"] as? [String])?.isEmpty == true })
        #expect(lines[0]["format"] as? String == "png" && lines[0]["hasAlpha"] as? Bool == true && lines[0]["pixelFormat"] as? String == "rgba8")
        // The JPEG is stored 320x480 sideways with orientation 6: info reports what is stored.
        #expect(lines[1]["width"] as? Int == 320 && lines[1]["height"] as? Int == 480 && lines[1]["orientation"] as? Int == 6)
        #expect(lines[2]["frames"] as? Int == 12 && lines[2]["loopCount"] as? Int == 0)
        #expect((lines[2]["durationsMs"] as? [Int])?.count == 12)
        let text = try await cli.run(["info", Samples.gif])
        #expect(text.stdout.contains("gif 160x120") && text.stdout.contains("12 frames"))
    }

    @Test("fetch without -o or --json says what it did instead of nothing")
    func fetchWithoutOutputSaysSo() async throws {
        let run = try await cli.run(["fetch", Samples.png, temp.path("missing.png"), "--no-cache"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("imagepipe: loaded 1 of 2 and kept nothing (--no-cache); no file written: give -o DIR to write the images, or --json to list them"), "\(run.stderr)")
        let cached = try await cli.run(["fetch", Samples.png, "--cache-dir", temp.path("cache")])
        #expect(cached.status == 0)
        #expect(cached.stderr.contains("imagepipe: fetched 1 of 1 into the disk cache; no file written"), "\(cached.stderr)")
        let listed = try await cli.run(["fetch", Samples.png, "--no-cache", "--json"])
        #expect(!listed.stderr.contains("no file written"), "--json lists what was done")
    }

    @Test("--resize is another name for --thumbnail, the name people guess first")
    func resizeAlias() async throws {
        let run = try await cli.run(["fetch", Samples.png, "--resize", "16x16", "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let width = try #require(run.jsonLines.first?["width"] as? Int), height = try #require(run.jsonLines.first?["height"] as? Int)
        #expect(max(width, height) == 16)
    }

    @Test("`imagepipe transforms` lists every --transform spec; the help points there")
    func transformsList() async throws {
        let list = try await cli.run(["transforms"])
        #expect(list.status == 0, "\(list.stderr)")
        for spec in ["resize:", "crop:", "round:", "rotate:", "flip:", "tint:", "grayscale", "blur:"] { #expect(list.stdout.contains(spec), "\(spec)") }
        let help = try await cli.run(["--help"])
        #expect(help.stdout.replacingOccurrences(of: "\n", with: " ").contains("`imagepipe transforms` lists them"))
    }

    @Test("fetch writes upright thumbnails with every JSON field, keeps animations, and converts formats")
    func fetch() async throws {
        let out = temp.path("out")
        let run = try await cli.run(["fetch", Samples.jpeg, Samples.gif, "-o", out, "--thumbnail", "100x100", "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.jsonLines.sorted { ($0["source"] as! String) < ($1["source"] as! String) }
        #expect(lines.count == 2)
        let keys: Set = ["source", "output", "cacheType", "format", "width", "height", "frames", "bytes", "warnings", "ms"]
        for line in lines { #expect(Set(line.keys) == keys) }
        #expect(lines.allSatisfy { ($0["warnings"] as? [String])?.isEmpty == true })
        let photo = try #require(lines.first { ($0["source"] as! String).hasSuffix("photo.jpg") })
        // Shown upright the photo is landscape: 100x67, not the stored portrait.
        #expect(photo["width"] as? Int == 100 && photo["height"] as? Int == 67 && photo["cacheType"] as? String == "none")
        let gif = try #require(lines.first { ($0["source"] as! String).hasSuffix("spinner.gif") })
        #expect(gif["frames"] as? Int == 12 && gif["format"] as? String == "gif")
        let written = try #require(photo["output"] as? String)
        let described = try await cli.run(["info", "--json", written])
        #expect(described.jsonLines.first?["width"] as? Int == 100 && described.jsonLines.first?["orientation"] as? Int == 1)
        #expect((photo["bytes"] as? Int) == (try FileManager.default.attributesOfItem(atPath: written)[.size] as? Int))

        // Without -o, `bytes` is what was loaded, thumbnail or not.
        let unwritten = try await cli.run(["fetch", Samples.jpeg, "--thumbnail", "100x100", "--no-cache", "--json"])
        #expect(unwritten.status == 0, "\(unwritten.stderr)")
        #expect(unwritten.jsonLines.first?["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: Samples.jpeg)[.size] as? Int))

        let webp = try await cli.run(["fetch", Samples.png, "-o", out, "--format", "webp", "--transform", "resize:50x40:cover", "--transform", "grayscale", "--no-cache", "--json"])
        #expect(webp.status == 0, "\(webp.stderr)")
        let line = try #require(webp.jsonLines.first)
        #expect(line["format"] as? String == "webp" && line["width"] as? Int == 50 && line["height"] as? Int == 40)
        #expect((line["output"] as? String)?.hasSuffix("badge.webp") == true)
    }

    @Test("An animation fetched as JPEG is one frame; without a cache only that frame is read, so a record broken after it does not matter")
    func stillOutputOfAnimation() async throws {
        // 1x1, palette red and blue; each frame a graphic control extension and a 1x1 image.
        let header: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 255, 0, 0, 0, 0, 255]
        let frame: [UInt8] = [0x21, 0xF9, 4, 0, 10, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        let broken = temp.path("broken.gif")
        try Data(header + frame + frame + [0x99, 1, 2, 3]).write(to: URL(fileURLWithPath: broken))
        let out = temp.path("out")
        let still = try await cli.run(["fetch", broken, "-o", out, "--format", "jpeg", "--no-cache", "--json"])
        #expect(still.status == 0, "\(still.stderr)")
        let line = try #require(still.jsonLines.first)
        #expect(line["frames"] as? Int == 1 && line["format"] as? String == "jpeg")
        // Kept animated, the whole file is read and its broken record refused.
        let animated = try await cli.run(["fetch", broken, "-o", out, "--format", "gif", "--no-cache", "--json"])
        #expect(animated.status == 1)
        // Through the cache the whole animation is decoded; the JPEG written is still one frame.
        let cached = try await cli.run(["fetch", Samples.gif, "-o", out, "--format", "jpeg", "--json"])
        #expect(cached.status == 0, "\(cached.stderr)")
        #expect(cached.jsonLines.first?["frames"] as? Int == 1)
    }

    @Test("A missing file and a corrupt image fail alone: the others are written, exit status 1, one line each on stderr")
    func failuresDoNotStopOthers() async throws {
        let corrupt = temp.path("corrupt.png")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Samples.png))
        bytes.replaceSubrange(40..<bytes.count, with: Data(repeating: 0xAB, count: bytes.count - 40))
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        let out = temp.path("out")
        let run = try await cli.run(["fetch", Samples.png, temp.path("missing.png"), corrupt, Samples.webp, "-o", out, "--no-cache", "--json"])
        #expect(run.status == 1)
        let lines = run.jsonLines
        #expect(lines.count == 4)
        #expect(lines.filter { $0["error"] != nil }.count == 2)
        #expect(lines.filter { $0["error"] == nil }.allSatisfy { $0["output"] is String })
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imagepipe: ") }
        #expect(errors.count == 2)
        #expect(errors.contains { $0.contains("missing.png") } && errors.contains { $0.contains("corrupt.png") })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out)) == ["badge.png", "scene.webp"])
    }

    @Test(
        "Bad usage exits with status 2",
        arguments: [
            ["fetch"],
            ["fetch", "a.png", "--thumbnail", "0x5"],
            ["fetch", "a.png", "--transform", "sharpen:2"],
            ["fetch", "a.png", "--format", "bmp"],
            ["fetch", "a.png", "--quality", "101"],
            ["fetch", "a.png", "--option", "noSuchOption"],
            ["fetch", "a.png", "--cache-dir", "/tmp/x", "--no-cache"],
            ["convert", "a.png", "b.tiff"],
            ["cache", "explode"],
            ["frobnicate"],
        ])
    func badUsage(arguments: [String]) async throws {
        let run = try await cli.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(!run.stderr.isEmpty)
    }

    @Test("A second fetch in another process is served from the disk cache with zero requests to the server")
    func cachePersistsAcrossProcesses() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let body = try Data(contentsOf: URL(fileURLWithPath: Samples.png))
        server.route("/img/badge.png") { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: body)
        }
        let url = server.url("/img/badge.png").absoluteString
        let cacheDir = temp.path("cache")
        let first = try await cli.run(["fetch", url, "--thumbnail", "64x64", "--cache-dir", cacheDir, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.jsonLines.first?["cacheType"] as? String == "none")
        #expect(server.requestCount("/img/badge.png") == 1)
        let second = try await cli.run(["fetch", url, "--thumbnail", "64x64", "--cache-dir", cacheDir, "--json"])
        #expect(second.jsonLines.first?["cacheType"] as? String == "disk")
        #expect(second.jsonLines.first?["width"] as? Int == 64)
        #expect(server.requestCount("/img/badge.png") == 1, "the second process made a request")
        // Another thumbnail size comes from the original on disk, still without the network.
        let third = try await cli.run(["fetch", url, "--thumbnail", "32x32", "--cache-dir", cacheDir, "--json"])
        #expect(third.jsonLines.first?["cacheType"] as? String == "disk")
        #expect(server.requestCount("/img/badge.png") == 1)

        let stats = try await cli.run(["cache", "stats", "--cache-dir", cacheDir, "--json"])
        let line = try #require(stats.jsonLines.first)
        #expect(line["directory"] as? String == cacheDir && (line["count"] as? Int ?? 0) >= 2 && (line["bytes"] as? Int ?? 0) > 0)
        let cleared = try await cli.run(["cache", "clear", "--cache-dir", cacheDir, "--json"])
        #expect(cleared.jsonLines.first?["count"] as? Int == 0)
        let refetch = try await cli.run(["fetch", url, "--thumbnail", "64x64", "--cache-dir", cacheDir, "--option", "fromCacheOnly", "--json"])
        #expect(refetch.status == 1, "a cache-only fetch after clear finds nothing")
    }

    @Test("The default cache folder is $XDG_CACHE_HOME/imagepipe/default")
    func defaultCacheFolder() async throws {
        let run = try await cli.run(["cache", "stats", "--json"])
        #expect(run.jsonLines.first?["directory"] as? String == temp.url.appendingPathComponent("xdg/imagepipe/default").path)
    }

    @Test("convert keeps animations in animated formats, picks frames, and leaves no file when it fails")
    func convert() async throws {
        let animated = temp.path("spin.webp")
        var run = try await cli.run(["convert", Samples.gif, animated])
        #expect(run.status == 0, "\(run.stderr)")
        var info = try await cli.run(["info", "--json", animated])
        #expect(info.jsonLines.first?["frames"] as? Int == 12 && info.jsonLines.first?["format"] as? String == "webp")

        let frame = temp.path("frame.png")
        run = try await cli.run(["convert", Samples.animatedWebP, frame, "--frame", "5", "--thumbnail", "80x80"])
        #expect(run.status == 0, "\(run.stderr)")
        info = try await cli.run(["info", "--json", frame])
        #expect(info.jsonLines.first?["frames"] as? Int == 1 && info.jsonLines.first?["width"] as? Int == 80)

        run = try await cli.run(["convert", Samples.gif, temp.path("nope.png"), "--frame", "99"])
        #expect(run.status == 1 && run.stderr.contains("spinner.gif"))
        let rotated = temp.path("rotated.jpg")
        run = try await cli.run(["convert", Samples.png, rotated, "--transform", "rotate:90", "--quality", "70"])
        #expect(run.status == 0)
        info = try await cli.run(["info", "--json", rotated])
        #expect(info.jsonLines.first?["width"] as? Int == 240 && info.jsonLines.first?["height"] as? Int == 320)

        run = try await cli.run(["convert", temp.path("missing.gif"), temp.path("never.png")])
        #expect(run.status == 1)
        #expect(!temp.files.contains { $0.hasPrefix("never") || $0.hasSuffix(".tmp") || $0.hasPrefix(".tmp-") }, "no partial output")
    }

    @Test("An animation written to .png or with --format apng stays animated (APNG); --frame picks one; info reports its frames")
    func animatedPNG() async throws {
        let apng = temp.path("spin.png")
        var run = try await cli.run(["convert", Samples.gif, apng, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.first?["frames"] as? Int == 12 && run.jsonLines.first?["format"] as? String == "png")
        var info = try await cli.run(["info", "--json", apng])
        let line = try #require(info.jsonLines.first)
        #expect(line["format"] as? String == "png" && line["frames"] as? Int == 12)
        #expect((line["durationsMs"] as? [Int])?.count == 12)

        let still = temp.path("still.apng")
        run = try await cli.run(["convert", apng, still, "--frame", "3"])
        #expect(run.status == 0, "\(run.stderr)")
        info = try await cli.run(["info", "--json", still])
        #expect(info.jsonLines.first?["frames"] as? Int == 1)

        let out = temp.path("fetched")
        run = try await cli.run(["fetch", Samples.gif, "--format", "apng", "-o", out, "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try #require(run.jsonLines.first?["output"] as? String)
        #expect(written.hasSuffix(".png") && run.jsonLines.first?["frames"] as? Int == 12)
        info = try await cli.run(["info", "--json", written])
        #expect(info.jsonLines.first?["frames"] as? Int == 12)
    }

    @Test("A truncated JPEG converts with one escaped warning line on stderr and a JSON warnings array")
    func truncatedJPEGWarns() async throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Samples.jpeg))
        // A newline in the name must not forge a second line on stderr.
        let cut = temp.path("cut\nshort.jpg")
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let expected = "imagepipe: \(temp.path("cut\\nshort.jpg")): warning: JPEG: Premature end of JPEG file"

        let converted = try await cli.run(["convert", cut, temp.path("out.png"), "--json"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.split(separator: "\n").contains { $0 == expected }, "\(converted.stderr)")
        #expect(converted.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("imagepipe: ") }, "\(converted.stderr)")
        let warnings = try #require(converted.jsonLines.first?["warnings"] as? [String])
        #expect(warnings.contains("JPEG: Premature end of JPEG file"))
        #expect(temp.files.contains("out.png"))

        let out = temp.path("fetched")
        let fetched = try await cli.run(["fetch", cut, "-o", out, "--no-cache", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stderr.split(separator: "\n").contains { $0 == expected }, "\(fetched.stderr)")
        #expect((fetched.jsonLines.first?["warnings"] as? [String])?.contains("JPEG: Premature end of JPEG file") == true)

        let described = try await cli.run(["info", cut, "--json"])
        #expect(described.status == 0, "\(described.stderr)")
        #expect((described.jsonLines.first?["warnings"] as? [String])?.contains("JPEG: Premature end of JPEG file") == true)
    }

    @Test("--fail-on-warning turns a truncated JPEG into a failure: exit 1, no output file, the warning still reported")
    func failOnWarning() async throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Samples.jpeg))
        let cut = temp.path("cut.jpg")
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: cut))

        let converted = try await cli.run(["convert", cut, temp.path("never.png"), "--fail-on-warning"])
        #expect(converted.status == 1)
        #expect(converted.stderr.contains("imagepipe: \(cut): warning: JPEG: Premature end of JPEG file"), "\(converted.stderr)")
        #expect(converted.stderr.contains("--fail-on-warning"), "\(converted.stderr)")
        #expect(!temp.files.contains { $0.hasPrefix("never") || $0.hasSuffix(".tmp") || $0.hasPrefix(".tmp-") }, "no output, not even a partial one")

        let out = temp.path("out")
        let fetched = try await cli.run(["fetch", cut, Samples.png, "-o", out, "--no-cache", "--json", "--fail-on-warning"])
        #expect(fetched.status == 1)
        let failed = try #require(fetched.jsonLines.first { ($0["source"] as? String) == cut })
        #expect(failed["output"] is NSNull && (failed["error"] as? String)?.contains("--fail-on-warning") == true)
        #expect((failed["warnings"] as? [String])?.contains("JPEG: Premature end of JPEG file") == true)
        // The clean source beside it is written as usual; the refused one leaves nothing.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out)) == ["badge.png"])

        let described = try await cli.run(["info", cut, Samples.png, "--json", "--fail-on-warning"])
        #expect(described.status == 1)
        #expect(described.jsonLines.count == 2)
        #expect(described.jsonLines.first?["error"] != nil && described.jsonLines.last?["error"] == nil)

        let clean = try await cli.run(["convert", Samples.jpeg, temp.path("clean.png"), "--fail-on-warning"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
    }

    @Test("A truncated file's thumbnail served from the disk cache still warns, and still fails with --fail-on-warning")
    func warningsComeBackFromTheCache() async throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Samples.jpeg))
        let cut = temp.path("cut.jpg")
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let arguments = ["fetch", cut, "--thumbnail", "64x64", "--cache-dir", temp.path("cache"), "--json"]
        let first = try await cli.run(arguments)
        #expect(first.status == 0 && first.jsonLines.first?["cacheType"] as? String == "none", "\(first.stderr)")
        let second = try await cli.run(arguments)
        #expect(second.jsonLines.first?["cacheType"] as? String == "disk", "\(second.stdout)")
        #expect((second.jsonLines.first?["warnings"] as? [String])?.contains("JPEG: Premature end of JPEG file") == true)
        let strict = try await cli.run(arguments + ["--fail-on-warning"])
        #expect(strict.status == 1 && strict.jsonLines.first?["cacheType"] as? String == "none")
    }

    @Test("convert with a transform whose output is over the pixel limit exits 1 naming the limit, writes nothing")
    func transformOverPixelLimit() async throws {
        let output = temp.path("huge.png")
        let run = try await cli.run(["convert", Samples.png, output, "--transform", "resize:100000x100000"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("pixels limit exceeded: 10000000000 is more than the maximum of 100000000"), "\(run.stderr)")
        #expect(run.stderr.contains("raise --max-pixels if this is expected"), "the flag that raises it")
        #expect(!temp.files.contains { $0.hasPrefix("huge") }, "no output file")
    }
}
