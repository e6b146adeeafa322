import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Encoding stills and sequences; avifdec reads what we write.
struct AVIFEncoderTests {
    static let source = try! PixelBuffer(width: 21, height: 11, format: .rgba8, bytes: TestPNGWriter.pattern(width: 21, height: 11, alpha: true))

    @Test("a still round-trips with its size and alpha, closer at higher quality")
    func stillRoundTrip() throws {
        var errors: [Int] = []
        for quality in [0.3, 0.9] {
            let data = try AVIFCoder().encode(Image(Self.source), as: .avif, options: ImageEncodeOptions(quality: quality))
            let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
            #expect(image.pixelSize == Self.source.size && image.pixelFormat == .rgba8)
            errors.append(maxChannelDifference(image.firstFrame.bytes, Self.source.bytes))
        }
        #expect(errors[1] <= errors[0])
    }

    @Test("lossless gives back every byte, transparent pixels' colours included")
    func lossless() throws {
        let data = try AVIFCoder().encode(Image(Self.source), as: .avif, options: ImageEncodeOptions(lossless: true))
        #expect(try AVIFCoder().decode(data, options: ImageDecodeOptions()).firstFrame.bytes == Self.source.bytes)
    }

    @Test("an opaque RGBA image is written without an alpha plane; gray is written as colour")
    func formats() throws {
        let opaque = Self.source.converted(to: .rgb8).converted(to: .rgba8)
        let rgb = try AVIFCoder().decode(try AVIFCoder().encode(Image(opaque), as: .avif, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(rgb.pixelFormat == .rgb8)
        let gray = try AVIFCoder().decode(
            try AVIFCoder().encode(Image(Self.source.converted(to: .gray8)), as: .avif, options: ImageEncodeOptions()),
            options: ImageDecodeOptions())
        #expect(gray.pixelFormat == .rgb8 && gray.pixelSize == Self.source.size)
    }

    @Test("a sequence keeps its frames and millisecond durations; other sizes are resampled")
    func sequence() throws {
        let frames = [
            ImageFrame(Self.source, duration: 0.05),
            ImageFrame(Self.source.converted(to: .rgb8).converted(to: .rgba8), duration: 0.25),
            ImageFrame(Self.source.resampled(to: ImageSize(width: 10, height: 5)), duration: 1),
        ]
        let data = try AVIFCoder().encode(frames: frames, loopCount: 0, as: .avif, options: ImageEncodeOptions())
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 3 && image.pixelSize == Self.source.size)
        #expect((0..<3).map { image.duration(at: $0) } == [0.05, 0.25, 1])
        #expect(try image.frame(at: 2).size == Self.source.size)
    }

    @Test("maxPixelSize scales down, aspect kept")
    func maxPixelSize() throws {
        let data = try AVIFCoder().encode(Image(Self.source), as: .avif, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 10, height: 10)))
        #expect(try AVIFCoder().decode(data, options: ImageDecodeOptions()).pixelSize.width == 10)
    }

    @Test("avifdec reads what we write", .enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
    func avifdecReads() throws {
        var options = ImageEncodeOptions(quality: 0.8)
        options.extras[.avifSpeed] = 10
        let data = try AVIFCoder().encode(Image(Self.source), as: .avif, options: options)
        let url = ToolFixtures.url("encoded-\(UUID().uuidString).avif")
        try data.write(to: url)
        let reference = try ToolFixtures.reference(tool: "avifdec", ["-d", "8"], input: url)
        let ours = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(maxChannelDifference(ours.firstFrame.bytes, reference.rgba) <= 1)
    }

    @Test("other formats are refused")
    func otherFormats() {
        #expect(!AVIFCoder().canEncode(to: .png))
        #expect(throws: ImagePipeError.unsupportedFormat(.png, reason: "AVIFCoder encodes AVIF only")) {
            try AVIFCoder().encode(Image(Self.source), as: .png, options: ImageEncodeOptions())
        }
    }
}
