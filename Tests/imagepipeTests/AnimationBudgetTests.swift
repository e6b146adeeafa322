import Foundation
import TestSupport
import Testing

/// Animations that are cheap to send and expensive to process, run through the built `imagepipe`
/// in a child process whose peak resident memory the kernel reports. Over the budget they fail at
/// once with the setting to raise; within it they stream, one frame at a time.
@Suite("Hostile animations through the CLI")
struct AnimationBudgetTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }
    static let setting = "ImageDecodeOptions.maxAnimationPixels"

    func write(_ data: Data, _ name: String) throws -> String {
        let path = temp.path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("A 499-byte GIF and a 1 KB WebP of 20 frames on a 10000x10000 canvas are refused by convert and fetch --transform, naming the setting, under 64 MiB")
    func tinyFramesOnAHugeCanvas() async throws {
        let gif = try write(HostileAnimations.gif(frames: 20, width: 10_000, height: 10_000), "canvas.gif")
        let webp = try write(HostileAnimations.webp(frames: 20, width: 10_000, height: 10_000), "canvas.webp")
        let runs = [
            ["convert", gif, temp.path("out.webp")],
            ["convert", webp, temp.path("out.gif")],
            ["fetch", "--no-cache", "--transform", "grayscale", "-o", temp.path("fetched"), gif],
            ["fetch", "--no-cache", "--transform", "grayscale", "-o", temp.path("fetched"), webp],
        ]
        for arguments in runs {
            let measured = try await cli.runMeasuringMemory(arguments)
            #expect(measured.run.status == 1, "\(arguments): \(measured.run.stderr)")
            #expect(measured.run.stderr.contains("animationPixels limit exceeded: 2000000000 is more than the maximum of 50000000"), "\(measured.run.stderr)")
            #expect(measured.run.stderr.contains(Self.setting))
            #expect(measured.peakMiB < 64, "\(arguments) peaked at \(measured.peakMiB) MiB")
        }
        #expect(!temp.files.contains { $0.hasPrefix("out") }, "no output written")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: temp.path("fetched")))?.isEmpty ?? true)
    }

    @Test("A 13 KB APNG of 20 frames on a 10000x10000 canvas is refused by convert and fetch --transform, naming the setting, under 64 MiB")
    func apngOnAHugeCanvas() async throws {
        let data = APNGWriter.hostile(frames: 20, width: 10_000, height: 10_000)
        #expect(data.count < 16_000)
        let apng = try write(data, "canvas.png")
        for arguments in [["convert", apng, temp.path("out.gif")], ["fetch", "--no-cache", "--transform", "grayscale", "-o", temp.path("fetched"), apng]] {
            let measured = try await cli.runMeasuringMemory(arguments)
            #expect(measured.run.status == 1, "\(arguments): \(measured.run.stderr)")
            #expect(measured.run.stderr.contains("animationPixels limit exceeded: 2000000000 is more than the maximum of 50000000"), "\(measured.run.stderr)")
            #expect(measured.run.stderr.contains(Self.setting))
            #expect(measured.peakMiB < 64, "\(arguments) peaked at \(measured.peakMiB) MiB")
        }
        #expect(!temp.files.contains { $0.hasPrefix("out") }, "no output written")
    }

    @Test("A 230 KB GIF of 9,999 frames of 5000x5000 fails a 64x64 thumbnail at once instead of compositing for minutes")
    func manyLargeFrames() async throws {
        let gif = try write(HostileAnimations.gif(frames: 9_999, width: 5_000, height: 5_000), "many.gif")
        let measured = try await cli.runMeasuringMemory(["fetch", "--no-cache", "--thumbnail", "64x64", "-o", temp.path("thumbs"), gif])
        #expect(measured.run.status == 1)
        #expect(measured.run.stderr.contains(Self.setting), "\(measured.run.stderr)")
        #expect(measured.peakMiB < 64, "peaked at \(measured.peakMiB) MiB")
    }

    // The child is the debug build, whose Swift resampler runs at a few µs a pixel: thumbnails that
    // need it stay small here; the release figures for larger ones are in the change's notes.

    @Test("A 1,000-frame GIF converts to WebP one frame at a time, under 64 MiB (all its frames would be 160 MB)")
    func thousandFrameConvert() async throws {
        let gif = try write(HostileAnimations.gif(frames: 1_000, width: 200, height: 200, rect: 4), "thousand.gif")
        let output = temp.path("thousand.webp")
        let measured = try await cli.runMeasuringMemory(["convert", gif, output])
        #expect(measured.run.status == 0, "\(measured.run.stderr)")
        let info = try await cli.run(["info", "--json", output])
        #expect(info.jsonLines.first?["frames"] as? Int == 1_000)
        #expect(measured.peakMiB < 64, "peaked at \(measured.peakMiB) MiB")
    }

    @Test("A 1,000-frame animation's 64x64 thumbnail keeps every frame and peaks under 64 MiB")
    func thousandFrameThumbnail() async throws {
        let webp = try write(HostileAnimations.webpFullFrames(frames: 1_000, width: 220, height: 220), "thousand.webp")
        let measured = try await cli.runMeasuringMemory([
            "fetch", "--no-cache", "--json", "--thumbnail", "64x64", "--format", "gif",
            "-o", temp.path("thumbs"), webp,
        ])
        #expect(measured.run.status == 0, "\(measured.run.stderr)")
        let line = try #require(measured.run.jsonLines.first)
        #expect(line["frames"] as? Int == 1_000 && line["width"] as? Int == 64 && line["height"] as? Int == 64)
        #expect(measured.peakMiB < 64, "peaked at \(measured.peakMiB) MiB")
    }

    @Test(
        "Animations within the budget convert across formats and transform holding a few canvases, not their 180 MiB of frames",
        arguments: [
            ["convert", "{gif}", "{out}.webp"],
            ["convert", "{webp}", "{out}.gif"],
            ["fetch", "--no-cache", "--transform", "crop:0,0,1200,1200", "--format", "webp", "-o", "{out}", "{gif}"],
        ])
    func streamedConvert(_ template: [String]) async throws {
        // 24 frames of a 1400x1400 canvas: 180 MiB of RGBA frames if they were all held at once.
        let gif = try write(HostileAnimations.gif(frames: 24, width: 1_400, height: 1_400, rect: 8), "stream.gif")
        let webp = try write(HostileAnimations.webp(frames: 24, width: 1_400, height: 1_400), "stream.webp")
        let arguments = template.map {
            $0.replacingOccurrences(of: "{gif}", with: gif).replacingOccurrences(of: "{webp}", with: webp)
                .replacingOccurrences(of: "{out}", with: temp.path("streamed"))
        }
        let measured = try await cli.runMeasuringMemory(arguments)
        #expect(measured.run.status == 0, "\(measured.run.stderr)")
        let output = arguments[0] == "fetch" ? temp.path("streamed/stream.webp") : arguments[2]
        let info = try await cli.run(["info", "--json", output])
        #expect(info.jsonLines.first?["frames"] as? Int == 24)
        #expect(measured.peakMiB < 128, "peaked at \(measured.peakMiB) MiB")
    }
}
