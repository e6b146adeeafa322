import CodersGIF
import Foundation
import TestSupport
import Testing

@testable import PipelineCore

@Suite("GIF animation and encoding", .dedicatedThreads)
struct GIFAnimationTests {
    let coder = GIFCoder()

    /// Distinct frames of at most 240 colours (so a palette keeps them exactly), with a transparent
    /// corner.
    static func frames(count: Int, width: Int = 16, height: Int = 15, alpha: Bool = true) throws -> [ImageFrame] {
        try (0..<count).map { n in
            var bytes: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let transparent = alpha && x < 3 && y < 3
                    bytes += [UInt8((x * 10 + n * 7) % 256), UInt8((y * 15) % 256), UInt8(n * 40 % 256), transparent ? 0 : 255]
                }
            }
            return ImageFrame(try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes), duration: 0.05 * Double(n + 1))
        }
    }

    @Test("Animated GIF encode → decode keeps frames, durations, loop count and pixels")
    func animatedRoundTrip() throws {
        let frames = try Self.frames(count: 5)
        let data = try coder.encode(frames: frames, loopCount: 3, as: .gif, options: ImageEncodeOptions())
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 5)
        #expect(image.loopCount == 3)
        for (index, frame) in frames.enumerated() {
            #expect(abs(image.duration(at: index) - frame.duration) < 1e-9)
            let decoded = try image.frame(at: index).converted(to: .rgba8)
            #expect(sameVisiblePixels(decoded.bytes, frame.buffer.bytes), "frame \(index)")
        }
    }

    @Test("Loop count 0 (forever) survives a round trip; a still GIF decodes as a plain image")
    func loopForeverAndStill() throws {
        let frames = try Self.frames(count: 2, alpha: false)
        let looping = try coder.decode(try coder.encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(looping.loopCount == 0)
        let still = try coder.decode(try coder.encode(Image(frames[0].buffer), as: .gif, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(!still.isAnimated)
        #expect(still.pixelFormat == .rgb8)
        #expect(still.firstFrame.converted(to: .rgba8).bytes == frames[0].buffer.bytes)
    }

    @Test("A photo with thousands of colours is quantized to a close palette")
    func quantizerKeepsColoursClose() throws {
        let width = 64, height = 64
        var bytes: [UInt8] = []
        for y in 0..<height { for x in 0..<width { bytes += [UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255] } }
        let source = try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
        let decoded = try coder.decode(try coder.encode(Image(source), as: .gif, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        let out = decoded.firstFrame.converted(to: .rgba8).bytes
        var totalError = 0
        for i in stride(from: 0, to: bytes.count, by: 4) { for c in 0..<3 { totalError += abs(Int(out[i + c]) - Int(bytes[i + c])) } }
        let meanError = Double(totalError) / Double(width * height * 3)
        #expect(meanError < 4, "mean error \(meanError) per channel")
    }

    @Test("Frames asked for in any order match frames asked for in order")
    func randomAccess() throws {
        let data = try Corpus.data("gif", "peterdn-gif-test-suite/animated_transparent_restoreprev_loop.gif")
        let inOrder = try coder.decode(data, options: ImageDecodeOptions())
        let expected = try (0..<inOrder.frameCount).map { try inOrder.frame(at: $0) }
        guard let provider = try coder.animatedImageProvider(for: data, options: ImageDecodeOptions()) else {
            Issue.record("no provider")
            return
        }
        for index in [3, 1, 2, 0, 3, 2, 1] { #expect(try provider.frame(at: index) == expected[index], "frame \(index)") }
    }

    @Test("Playing a long animation three times holds a bounded number of frames")
    func memoryStaysBounded() throws {
        let frames = try Self.frames(count: 60, width: 32, height: 32)
        let data = try coder.encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions())
        guard let provider = try coder.animatedImageProvider(for: data, options: ImageDecodeOptions()) else {
            Issue.record("no provider")
            return
        }
        let frameBytes = 32 * 32 * 4
        let animation = try AnimatedImage(provider: provider, frameCacheBytes: 8 * frameBytes)
        for _ in 0..<3 { for index in 0..<animation.frameCount { _ = try animation.frame(at: index) } }
        #expect(animation.heldFrameCount <= 8)
        #expect(animation.memoryCost <= 9 * frameBytes)
    }

    @Test("Thumbnails: every frame is decoded at the thumbnail size")
    func thumbnail() throws {
        let data = try Corpus.data("gif", "image-rs/images/gif/anim/large-gif-anim-combine.gif")
        let image = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100)))
        #expect(image.pixelSize == ImageSize(width: 100, height: 100))
        #expect(try image.frame(at: 1).size == ImageSize(width: 100, height: 100))
    }

    @Test("A still's thumbnail, resampled as its rows are decoded, equals the full decode resampled", arguments: [false, true])
    func streamedStillThumbnail(firstFrameOfAnimation: Bool) throws {
        let frames = try Self.frames(count: firstFrameOfAnimation ? 3 : 1, width: 90, height: 60, alpha: false)
        let data = try coder.encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions())
        let box = ImageSize(width: 40, height: 40)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true, thumbnailPixelSize: box))
        let full = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(thumbnail.firstFrame.format == .rgb8)
        #expect(thumbnail.firstFrame == full.firstFrame.resampled(to: ImageSize(width: 40, height: 27)))
    }

    @Test("Limits: a screen over maxPixels and too many frames fail before decoding")
    func limits() throws {
        let data = try Corpus.data("gif", "peterdn-gif-test-suite/animated_loop.gif")
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 10_000, maximum: 100)) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixels: 100))
        }
        #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions(maxFrames: 2)) }
    }

    @Test("Registered with one call, the manager picks GIF by its magic bytes")
    func registration() throws {
        let manager = ImageCodersManager()
        manager.add(GIFCoder())
        let data = try Corpus.data("gif", "pygif-test-suite/four-colors.gif")
        #expect(manager.canDecode(data))
        #expect(!coder.canDecode(Data("RIFF0000WEBPVP8 ".utf8)))
        #expect(try manager.decode(data, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 2, height: 2))
    }

    @Test("Bytes that are not GIF get the same typed errors as from every other coder")
    func wrongBytes() throws {
        let png = try Corpus.data("pngsuite", "basn0g01.png")
        #expect(throws: ImagePipeError.unsupportedFormat(.png, reason: "GIFCoder decodes GIF only")) {
            try coder.decode(png, options: ImageDecodeOptions())
        }
        #expect(throws: ImagePipeError.badImageData(reason: "not a GIF file: no GIF signature")) {
            try coder.animatedImageProvider(for: Data("GIX89a and more".utf8), options: ImageDecodeOptions())
        }
        #expect(throws: ImagePipeError.badImageData(reason: "no bytes")) { try coder.decode(Data(), options: ImageDecodeOptions()) }
        let image = try coder.decode(Corpus.data("gif", "pygif-test-suite/four-colors.gif"), options: ImageDecodeOptions())
        #expect(throws: ImagePipeError.unsupportedFormat(.png, reason: "GIFCoder encodes GIF only")) {
            try coder.encode(image, as: .png, options: ImageEncodeOptions())
        }
    }
}
