import Foundation
import TestSupport
import Testing

/// AVIF and HEIF through the command line: `--format avif`, `.avif` outputs, `info` on HEIC.
@Suite("imagepipe with AVIF and HEIF")
struct CLIAVIFHEIFTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("convert writes .avif, keeping an animation animated; info reads it back")
    func convertToAVIF() async throws {
        let still = temp.path("badge.avif"), animated = temp.path("spinner.avif")
        let runs = [try await cli.run(["convert", Samples.png, still, "--json"]), try await cli.run(["convert", Samples.gif, animated, "--json"])]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        #expect(runs[1].jsonLines.first?["frames"] as? Int == 12)
        let info = try await cli.run(["info", "--json", still, animated])
        let lines = info.jsonLines
        #expect(lines.count == 2 && lines.allSatisfy { $0["format"] as? String == "avif" })
        #expect(lines[0]["hasAlpha"] as? Bool == true && lines[1]["frames"] as? Int == 12 && lines[1]["loopCount"] as? Int == 0)
    }

    @Test(
        "info reports an AVIF sequence's loop count from its edit list, as it does a GIF's",
        .enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
    func avifLoopCount() async throws {
        let sample = AVIFFixtures.animated
        let data = try sample.data()
        let segment = try AVIFEditListWriter.trackDuration(track: 0, of: data)
        let edts = AVIFEditListWriter.box("edts", AVIFEditListWriter.editList(repeats: true, segmentDuration: segment))
        let thrice = temp.path("thrice.avif")
        try AVIFEditListWriter.inserting(edts, intoTrack: 0, of: data, trackDuration: 3 * segment).write(to: URL(fileURLWithPath: thrice))
        let info = try await cli.run(["info", "--json", thrice, sample.url.path])
        #expect(info.status == 0, "\(info.stderr)")
        let lines = info.jsonLines
        #expect(lines.count == 2 && lines.first?["frames"] as? Int == 3)
        #expect(lines.first?["loopCount"] as? Int == 3 && lines.last?["loopCount"] as? Int == 0)
    }

    @Test("fetch --format avif writes name.avif with a thumbnail's size")
    func fetchAsAVIF() async throws {
        let run = try await cli.run(["fetch", Samples.jpeg, "-o", temp.path("out"), "--format", "avif", "--thumbnail", "64x64", "--no-cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.jsonLines.first)
        #expect(line["format"] as? String == "avif" && (line["output"] as? String)?.hasSuffix("photo.avif") == true)
        #expect(line["width"] as? Int == 64)
    }

    @Test("info reads a HEIC; converting it writes another format", .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func heic() async throws {
        let sample = HEIFFixtures.alpha
        _ = try sample.data()
        let info = try await cli.run(["info", "--json", sample.url.path])
        #expect(info.status == 0, "\(info.stderr)")
        let line = try #require(info.jsonLines.first)
        #expect(line["format"] as? String == "heic" && line["width"] as? Int == sample.width && line["hasAlpha"] as? Bool == true)
        let png = temp.path("alpha.png")
        #expect(try await cli.run(["convert", sample.url.path, png]).status == 0)
        #expect(FileManager.default.fileExists(atPath: png))
        let refused = try await cli.run(["convert", sample.url.path, temp.path("alpha.heic")])
        #expect(refused.status == 2 && refused.stderr.contains(".avif"))
    }

    @Test(
        "A HEIC fetched twice through a disk cache, whole or as a thumbnail, warns of nothing and is a disk hit the second time",
        .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func heicThroughTheDiskCache() async throws {
        let sample = HEIFFixtures.rgb
        _ = try sample.data()
        for extra in [[], ["--thumbnail", "16x16"], ["--transform", "grayscale"]] {
            let cache = temp.path("cache\(extra.count)-\(extra.last ?? "")")
            let runs = [
                try await cli.run(["fetch", sample.url.path, "--cache-dir", cache, "--json"] + extra),
                try await cli.run(["fetch", sample.url.path, "--cache-dir", cache, "--json"] + extra),
            ]
            for run in runs { #expect(run.status == 0 && run.stderr.isEmpty, "\(extra): \(run.stderr)") }
            #expect(runs.map { $0.jsonLines.first?["cacheType"] as? String } == ["none", "disk"], "\(extra)")
        }
    }
}
