import CodersGIF
import CodersJPEG
import CodersPNG
import CodersWebP
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("imagepipe colour management")
struct CLIColorTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// A flat 24x16 Display P3 patch as a JPEG, written into the temporary folder.
    func displayP3JPEG() throws -> String {
        let pixels = Array((0..<24 * 16).map { _ in ColorFixtures.displayP3Patch }.joined())
        var options = ImageEncodeOptions(quality: 1)
        options.extras[.jpegChromaSubsampling] = .yuv444
        let plain = try JPEGCoder().encode(Image(try PixelBuffer(width: 24, height: 16, format: .rgb8, bytes: pixels)), as: .jpeg, options: options)
        let path = temp.path("p3.jpg")
        try ColorFixtures.jpeg(plain, embedding: ColorFixtures.displayP3Profile()).write(to: URL(fileURLWithPath: path))
        return path
    }

    func centre(ofPNG path: String) throws -> [UInt8] {
        let image = try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: path)), options: ImageDecodeOptions())
        let buffer = image.firstFrame
        let offset = ((buffer.height / 2) * buffer.width + buffer.width / 2) * buffer.format.bytesPerPixel
        return Array(buffer.bytes[offset..<offset + 3])
    }

    func isClose(_ a: [UInt8], _ b: [UInt8]) -> Bool { zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 3 } }

    @Test("convert and fetch write a Display P3 JPEG's colours in sRGB; info names its profile")
    func convertsToSRGB() async throws {
        let source = try displayP3JPEG()
        let converted = temp.path("out.png")
        let run = try await cli.run(["convert", source, converted])
        #expect(run.status == 0, "\(run.stderr)")
        let pixel = try centre(ofPNG: converted)
        #expect(isClose(pixel, ColorFixtures.displayP3PatchInSRGB), "got \(pixel)")

        let fetched = try await cli.run(["fetch", source, "-o", temp.path("fetched"), "--format", "png", "--no-cache", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let output = try #require(fetched.jsonLines.first?["output"] as? String)
        #expect(isClose(try centre(ofPNG: output), ColorFixtures.displayP3PatchInSRGB))

        let info = try await cli.run(["info", "--json", source, converted])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.jsonLines.map { $0["iccProfile"] as? String } == ["Display P3", nil])
        #expect(info.jsonLines.last?.keys.contains("iccProfile") == true)
        let text = try await cli.run(["info", source])
        #expect(text.stdout.contains("ICC Display P3"))
    }

    @Test("--keep-icc skips the conversion and embeds the source profile byte for byte", arguments: ["png", "jpg", "webp"])
    func keepICC(ext: String) async throws {
        let source = try displayP3JPEG()
        let output = temp.path("kept.\(ext)")
        let run = try await cli.run(["convert", source, output, "--keep-icc", "--quality", "100"])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        let coders = ImageCodersManager(coders: [JPEGCoder(), PNGCoder()])
        if ext != "webp" {
            let image = try coders.decode(written, options: ImageDecodeOptions())
            #expect(image.metadata.colorProfile == .icc(ColorFixtures.displayP3Profile()))
            let buffer = image.firstFrame
            let offset = ((buffer.height / 2) * buffer.width + buffer.width / 2) * 3
            #expect(isClose(Array(buffer.bytes[offset..<offset + 3]), ColorFixtures.displayP3Patch))
        }
        let info = try await cli.run(["info", "--json", output])
        #expect(info.jsonLines.first?["iccProfile"] as? String == "Display P3")
    }

    @Test("By default a Display P3 JPEG converted to JPEG is written in sRGB without the profile, not copied")
    func sameFormatIsConvertedToo() async throws {
        let source = try displayP3JPEG()
        let output = temp.path("same.jpg")
        let run = try await cli.run(["convert", source, output])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try JPEGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: ImageDecodeOptions())
        #expect(image.metadata.colorProfile == nil)
        let buffer = image.firstFrame
        let offset = ((buffer.height / 2) * buffer.width + buffer.width / 2) * 3
        #expect(isClose(Array(buffer.bytes[offset..<offset + 3]), ColorFixtures.displayP3PatchInSRGB))
    }

    @Test("--keep-icc on an animation embeds the profile in animated GIF and WebP outputs", arguments: ["gif", "webp"])
    func keepICCOnAnimation(ext: String) async throws {
        let frames = try (0..<3).map { index in
            ImageFrame(try PixelBuffer(width: 8, height: 8, format: .rgba8, fill: ImageColor(red: UInt8(index * 80), green: 151, blue: 42)), duration: 0.1)
        }
        let plain = try GIFCoder().encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions())
        // An ICCRGBG1012 application extension before the trailer, the profile in 255-byte sub-blocks.
        let profile = [UInt8](ColorFixtures.displayP3Profile())
        var application: [UInt8] = [0x21, 0xFF, 11] + Array("ICCRGBG1012".utf8)
        for start in stride(from: 0, to: profile.count, by: 255) {
            let block = profile[start..<min(start + 255, profile.count)]
            application += [UInt8(block.count)] + block
        }
        let source = temp.path("p3.gif")
        try (plain.dropLast() + application + [0, 0x3B]).write(to: URL(fileURLWithPath: source))
        let output = temp.path("kept-animation.\(ext)")
        // A thumbnail, so the GIF output is encoded too rather than copied.
        let run = try await cli.run(["convert", source, output, "--keep-icc", "--thumbnail", "4x4"])
        #expect(run.status == 0, "\(run.stderr)")
        let coders = ImageCodersManager(coders: [GIFCoder(), WebPCoder()])
        let image = try coders.decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: ImageDecodeOptions())
        #expect(image.frameCount == 3 && image.pixelSize == ImageSize(width: 4, height: 4))
        #expect(image.metadata.colorProfile == .icc(ColorFixtures.displayP3Profile()))
    }
}
