import CodersJPEG
import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// `convert` at full size streams rows from the decoder to the encoder (`StreamedConversion`).
/// `--frame 0` takes the whole-image path for a still, so each test compares the two.
@Suite("imagepipe convert, streamed")
struct CLIStreamedConvertTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// 36 megapixels: 103 MiB as RGB, which the whole-image path holds at least once.
    static let largeSide = 6000
    /// Peak memory a streamed conversion of the 36 MP image stays under; the whole-image path's
    /// PNG to PNG goes over it.
    static let streamedPeakLimit = 96 << 20

    static func fixture(_ path: String) -> String { Corpus.root.appendingPathComponent(path).path }

    /// The pixels of an output file as RGBA, whatever it holds.
    func rgba(_ path: String) throws -> PixelBuffer {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let coder: any ImageCoder = ImageFormat.png.matches(data) ? PNGCoder() : JPEGCoder()
        return try coder.decode(data, options: ImageDecodeOptions()).firstFrame.converted(to: .rgba8)
    }

    @Test(
        "a 36 MP PNG converts to PNG and JPEG, and that JPEG to JPEG, under 96 MiB; the whole-image path takes more",
        .timeLimit(.minutes(5)))
    func largeImageStreams() async throws {
        let png = temp.path("large.png")
        try ServeHostileClientTests.columns(width: Self.largeSide, height: Self.largeSide).write(to: URL(fileURLWithPath: png))
        let jpeg = temp.path("large.jpg")
        for (source, output) in [(png, temp.path("out.png")), (png, jpeg), (jpeg, temp.path("out.jpg"))] {
            let measured = try await cli.runMeasuringMemory(["convert", source, output, "--json"])
            #expect(measured.run.status == 0, "\(measured.run.stderr)")
            #expect(measured.run.stderr.isEmpty, "\(measured.run.stderr)")
            let line = measured.run.jsonLines.first
            #expect(line?["width"] as? Int == Self.largeSide && line?["height"] as? Int == Self.largeSide)
            #expect(measured.peakBytes < Self.streamedPeakLimit, "\(source) → \(output): \(measured.peakMiB) MiB")
        }
        let whole = try await cli.runMeasuringMemory(["convert", png, temp.path("whole.png"), "--frame", "0"])
        #expect(whole.run.status == 0, "\(whole.run.stderr)")
        #expect(whole.peakBytes > Self.streamedPeakLimit, "the whole-image path took only \(whole.peakMiB) MiB")
        #expect(try rgba(temp.path("out.png")) == rgba(temp.path("whole.png")))
    }

    @Test("Ctrl-C or SIGTERM during a conversion leaves neither the output nor a temporary file", arguments: [SIGINT, SIGTERM])
    func interrupted(_ signalNumber: Int32) async throws {
        let png = temp.path("interrupted.png")
        try ServeHostileClientTests.columns(width: 4000, height: 4000).write(to: URL(fileURLWithPath: png))
        let folder = temp.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let environment = cli.environment
        let (reason, status, left) = try await runBlocking { () -> (Process.TerminationReason, Int32, [String]) in
            let process = Process()
            process.executableURL = CLIRunner.binary
            process.arguments = ["convert", png, folder + "/out.png"]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let start = ContinuousClock.now
            let listing = { (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }
            while !listing().contains(where: { $0.hasPrefix(".tmp-") }) && process.isRunning && ContinuousClock.now - start < .seconds(120) {
                usleep(2_000)
            }
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            return (process.terminationReason, process.terminationStatus, listing())
        }
        #expect(reason == .uncaughtSignal && status == signalNumber, "ended by \(reason) \(status)")
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test(
        "a streamed conversion writes the pixels the whole-image path writes",
        arguments: [
            "pngsuite/basn0g08.png", "pngsuite/basn0g16.png", "pngsuite/basn2c08.png", "pngsuite/basn2c16.png",
            "pngsuite/basn3p08.png", "pngsuite/basn4a08.png", "pngsuite/basn6a08.png", "pngsuite/basn6a16.png",
            "pngsuite/basi6a08.png", "pngsuite/g03n2c08.png", "pngsuite/tbrn2c08.png",
            "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgint.jpg",
            "jpeg/jpeg-decoder/reftest/mozilla/jpg-cmyk-1.jpg", "jpeg/jpeg-decoder/reftest/ycck.jpg",
            "jpeg/exif-orientation-examples/Landscape_1.jpg", "jpeg/exif-orientation-examples/Landscape_2.jpg",
            "jpeg/exif-orientation-examples/Landscape_3.jpg", "jpeg/exif-orientation-examples/Landscape_4.jpg",
            "jpeg/exif-orientation-examples/Landscape_5.jpg", "jpeg/exif-orientation-examples/Landscape_6.jpg",
            "jpeg/exif-orientation-examples/Landscape_7.jpg", "jpeg/exif-orientation-examples/Landscape_8.jpg",
        ] as [String],
        [".png", ".jpg"] as [String])
    func sameAsWholeImage(_ file: String, _ ext: String) async throws {
        let source = Self.fixture(file)
        let streamed = temp.path("streamed" + ext), whole = temp.path("whole" + ext)
        let first = try await cli.run(["convert", source, streamed])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await cli.run(["convert", source, whole, "--frame", "0"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(first.stderr == second.stderr)
        // A file with nothing to strip is copied as the whole-image path copies it without
        // `--frame` (`Image.isRepresented(by:as:)`); `--frame` always encodes.
        let isCopy = try Data(contentsOf: URL(fileURLWithPath: streamed)) == Data(contentsOf: URL(fileURLWithPath: source))
        #expect(try isCopy || rgba(streamed) == rgba(whole))
    }
}
