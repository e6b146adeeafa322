import CodersWebP
import Foundation
import TestSupport
import Testing

@testable import PipelineCore

@Suite("WebP encoding", .dedicatedThreads)
struct WebPEncodingTests {
    let coder = WebPCoder()

    /// Distinct frames with a gradient and a half-transparent corner.
    static func frames(count: Int, width: Int = 40, height: Int = 30) throws -> [ImageFrame] {
        try (0..<count).map { n in
            var bytes: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    bytes += [UInt8((x * 6 + n * 13) % 256), UInt8((y * 8) % 256), UInt8((n * 50) % 256), x < 5 && y < 5 ? 128 : 255]
                }
            }
            return ImageFrame(try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes), duration: 0.04 * Double(n + 1))
        }
    }

    @Test("Lossless still encode → decode keeps every pixel")
    func losslessStill() throws {
        let source = try Self.frames(count: 1)[0].buffer
        let data = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(lossless: true))
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.pixelFormat == .rgba8)
        #expect(image.firstFrame.bytes == source.bytes)
    }

    @Test("Lossy still encode: size, RGB kept, quality changes the size, alpha quality and method are accepted")
    func lossyStill() throws {
        let source = try coder.decode(Corpus.data("webp", "libwebp-test-data/test.webp"), options: ImageDecodeOptions()).firstFrame
        let high = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(quality: 0.95))
        let low = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(quality: 0.2))
        #expect(low.count < high.count)
        let decoded = try coder.decode(high, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == source.size)
        #expect(decoded.pixelFormat == .rgb8)
        var extras = ImageCodingExtras()
        extras[.webPMethod] = 6
        extras[.webPAlphaQuality] = 50
        let alpha = try Self.frames(count: 1)[0].buffer
        let withExtras = try coder.encode(Image(alpha), as: .webp, options: ImageEncodeOptions(extras: extras))
        #expect(try coder.decode(withExtras, options: ImageDecodeOptions()).pixelFormat == .rgba8)
    }

    @Test("maxPixelSize scales down keeping the aspect ratio; maxFileSize makes a smaller file")
    func sizeLimits() throws {
        let source = try coder.decode(Corpus.data("webp", "libwebp-test-data/test.webp"), options: ImageDecodeOptions()).firstFrame
        let small = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 64, height: 64)))
        let size = try coder.decode(small, options: ImageDecodeOptions()).pixelSize
        #expect(max(size.width, size.height) == 64)
        let unconstrained = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(quality: 1))
        let target = unconstrained.count / 3
        let constrained = try coder.encode(Image(source), as: .webp, options: ImageEncodeOptions(quality: 1, maxFileSize: target))
        #expect(constrained.count < unconstrained.count)
    }

    @Test("Animated lossless encode → decode keeps frame count, durations, loop count and pixels")
    func animatedRoundTrip() throws {
        let frames = try Self.frames(count: 5)
        let data = try coder.encode(frames: frames, loopCount: 7, as: .webp, options: ImageEncodeOptions(lossless: true))
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 5)
        #expect(image.loopCount == 7)
        for (index, frame) in frames.enumerated() {
            #expect(abs(image.duration(at: index) - frame.duration) < 1e-9)
            #expect(try image.frame(at: index).converted(to: .rgba8).bytes == frame.buffer.bytes, "frame \(index)")
        }
        let again = try coder.decode(try coder.encode(image, as: .webp, options: ImageEncodeOptions(lossless: true)), options: ImageDecodeOptions())
        #expect(again.frameCount == 5 && again.loopCount == 7)
    }

    @Test("Frame durations of 10 ms or less play as 100 ms (SDWebImage's WebP rule)")
    func shortDurations() throws {
        var frames = try Self.frames(count: 3)
        frames[0].duration = 0.010
        frames[1].duration = 0.011
        frames[2].duration = 0.001
        let image = try coder.decode(
            try coder.encode(frames: frames, loopCount: 0, as: .webp, options: ImageEncodeOptions(lossless: true)),
            options: ImageDecodeOptions())
        #expect((0..<3).map { image.duration(at: $0) } == [0.1, 0.011, 0.1])
    }

    @Test("Animated lossy encode keeps frames and timing, pixels within tolerance")
    func animatedLossy() throws {
        let frames = try Self.frames(count: 3)
        let data = try coder.encode(frames: frames, loopCount: 0, as: .webp, options: ImageEncodeOptions(quality: 0.9))
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 3 && image.loopCount == 0)
        for index in 0..<3 {
            let decoded = try image.frame(at: index).converted(to: .rgba8).bytes
            var total = 0
            for i in decoded.indices { total += abs(Int(decoded[i]) - Int(frames[index].buffer.bytes[i])) }
            #expect(Double(total) / Double(decoded.count) < 6)
        }
    }

    @Test("Playing a long animation three times holds a bounded number of frames")
    func memoryStaysBounded() throws {
        let frames = try Self.frames(count: 48, width: 32, height: 32)
        let data = try coder.encode(frames: frames, loopCount: 0, as: .webp, options: ImageEncodeOptions(lossless: true))
        let provider = try #require(try coder.animatedImageProvider(for: data, options: ImageDecodeOptions()))
        #expect(provider.frameCount == 48)
        let frameBytes = 32 * 32 * 4
        let animation = try AnimatedImage(provider: provider, frameCacheBytes: 6 * frameBytes)
        for _ in 0..<3 { for index in 0..<animation.frameCount { _ = try animation.frame(at: index) } }
        #expect(animation.heldFrameCount <= 6)
        #expect(animation.memoryCost <= 7 * frameBytes)
    }
}
