import CodersJXL
import Foundation
import PipelineCore
import Synchronization
import TestSupport
import Testing

/// What JXLCoder writes: lossless exactly, lossy close and as small as cjxl's at the same settings,
/// animations with their timing, metadata and colour profiles kept.
@Suite(.dedicatedThreads)
struct JXLEncoderTests {
    static func pattern(_ width: Int, _ height: Int, alpha: Bool) throws -> PixelBuffer {
        try PixelBuffer(
            width: width, height: height, format: alpha ? .rgba8 : .rgb8,
            bytes: alpha
                ? TestPNGWriter.pattern(width: width, height: height, alpha: true)
                : TestPNGWriter.pattern(width: width, height: height, alpha: true).enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
    }

    @Test("lossless gives every pixel back, in every pixel format", arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func losslessRoundTrip(_ format: PixelFormat) throws {
        let source = try Self.pattern(41, 27, alpha: true).converted(to: format)
        let data = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions(lossless: true))
        let decoded = try JXLCoder().decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == format)
        #expect(decoded.firstFrame.bytes == source.bytes)
    }

    @Test("lossy at the default quality stays close to the source, and lower quality is smaller")
    func lossyRoundTrip() throws {
        let source = try Self.pattern(64, 48, alpha: false)
        let high = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions())
        let low = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions(quality: 0.3))
        #expect(low.count < high.count)
        let decoded = try JXLCoder().decode(high, options: ImageDecodeOptions()).firstFrame
        let meanError = zip(decoded.bytes, source.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / source.bytes.count
        #expect(meanError <= 3, "mean error \(meanError)")
    }

    @Test("quality and effort mean what cjxl's -q and -e mean: the same file", .enabled(if: JXLFixtures.toolsInstalled, JXLFixtures.missingTools))
    func sameAsCjxl() throws {
        let source = try Self.pattern(37, 23, alpha: false)
        for (quality, effort) in [(0.8, 4), (0.5, 7)] {
            var extras = ImageCodingExtras()
            extras[.jxlEffort] = effort
            let ours = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions(quality: quality, extras: extras))
            let theirs = try ToolFixtures.make(
                "cjxl-q\(Int(quality * 100))-e\(effort).jxl", tool: "cjxl",
                ["-q", "\(Int(quality * 100))", "-e", "\(effort)", "--quiet", try ToolFixtures.sourcePNG(width: 37, height: 23, alpha: false).path])
            // The same settings give files of the same size (cjxl may frame them differently).
            #expect(abs(ours.count - theirs.count) <= 32, "quality \(quality) effort \(effort): \(ours.count) vs \(theirs.count) bytes")
        }
    }

    @Test("an animation keeps its frames, durations and loop count")
    func animation() throws {
        let frames = try (0..<3).map { index in
            ImageFrame(try PixelBuffer(width: 9, height: 7, format: .rgba8, bytes: TestPNGWriter.pattern(width: 9, height: 7, alpha: true, seed: index)), duration: [0.05, 0.2, 0.07][index])
        }
        let data = try JXLCoder().encode(frames: frames, loopCount: 3, as: .jxl, options: ImageEncodeOptions(lossless: true))
        let animation = try #require(try JXLCoder().decode(data, options: ImageDecodeOptions()).animation)
        #expect(animation.frameCount == 3 && animation.loopCount == 3)
        for index in 0..<3 {
            #expect(abs(animation.duration(at: index) - frames[index].duration) < 0.0005)
            #expect(try animation.frame(at: index).bytes == frames[index].buffer.bytes)
        }
        // And through an Image, streaming the frames from the decoded animation.
        let again = try JXLCoder().encode(Image(animation: animation), as: .jxl, options: ImageEncodeOptions(lossless: true))
        #expect(try JXLCoder().decode(again, options: ImageDecodeOptions()).animation?.frameCount == 3)
    }

    @Test("EXIF, XMP and an ICC profile are written and read back")
    func metadataRoundTrip() throws {
        let exif = Data([0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0])
        let xmp = Data(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8)
        let profile = ColorFixtures.displayP3Profile()
        let image = Image(try Self.pattern(8, 8, alpha: false), metadata: ImageMetadata(colorProfile: .icc(profile), exif: exif, xmp: xmp))
        let data = try JXLCoder().encode(image, as: .jxl, options: ImageEncodeOptions(lossless: true))
        let decoded = try JXLCoder().decode(data, options: ImageDecodeOptions())
        #expect(decoded.metadata.exif == exif)
        #expect(decoded.metadata.xmp == xmp)
        #expect(decoded.metadata.colorProfile?.iccData != nil)
        #expect(!decoded.metadata.hasUnreadMetadata)
        // Without metadata, an sRGB file says sRGB.
        let plain = try JXLCoder().encode(Image(try Self.pattern(8, 8, alpha: false)), as: .jxl, options: ImageEncodeOptions())
        #expect(try JXLCoder().decode(plain, options: ImageDecodeOptions()).metadata.colorProfile == .sRGB)
    }

    @Test("maxPixelSize shrinks before encoding")
    func maxPixelSize() throws {
        let data = try JXLCoder().encode(Image(try Self.pattern(40, 20, alpha: false)), as: .jxl, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 10, height: 10)))
        #expect(try JXLCoder().decode(data, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 10, height: 5))
    }

    @Test("a cancelled encode stops before the next frame, and before the first")
    func cancellation() throws {
        let provider = CancellingProvider(frames: 6, cancelAt: 2)
        let animation = try AnimatedImage(provider: provider)
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(provider.flag) { try JXLCoder().encode(Image(animation: animation), as: .jxl, options: ImageEncodeOptions()) }
        }
        #expect(provider.asked.withLock { $0 } == [0, 1, 2], "frames asked for: \(provider.asked.withLock { $0 })")
        let cancelled = DecodeCancellation()
        cancelled.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(cancelled) {
                try JXLCoder().encode(Image(try Self.pattern(8, 8, alpha: false)), as: .jxl, options: ImageEncodeOptions())
            }
        }
    }

    @Test("only JPEG XL is written")
    func otherFormats() {
        #expect(JXLCoder().canEncode(to: .jxl) && !JXLCoder().canEncode(to: .png))
        #expect(throws: ImagePipeError.self) { try JXLCoder().encode(Image(try Self.pattern(2, 2, alpha: false)), as: .png, options: ImageEncodeOptions()) }
    }
}

/// Frames of one gray level each; asked for frame `cancelAt`, it cancels `flag` (as a request
/// going away while its animation is being written).
final class CancellingProvider: AnimatedImageProvider {
    let frameCount: Int
    let cancelAt: Int
    let flag = DecodeCancellation()
    let asked = Mutex<[Int]>([])
    init(frames: Int, cancelAt: Int) { (frameCount, self.cancelAt) = (frames, cancelAt) }
    var data: Data { Data("frames".utf8) }
    var format: ImageFormat { .gif }
    var canvasSize: ImageSize { ImageSize(width: 64, height: 64) }
    var pixelFormat: PixelFormat { .gray8 }
    var loopCount: Int { 0 }
    func duration(at index: Int) -> Double { 0.1 }
    func frame(at index: Int) throws -> PixelBuffer {
        asked.withLock { $0.append(index) }
        if index == cancelAt { flag.cancel() }
        return try PixelBuffer(width: 64, height: 64, format: .gray8, bytes: [UInt8](repeating: UInt8(index * 40), count: 64 * 64))
    }
}
