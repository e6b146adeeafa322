import CodersGIF
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("GIF animation budget and streaming", .dedicatedThreads)
struct GIFAnimationBudgetTests {
    let coder = GIFCoder()

    @Test("A GIF whose frames add up past maxAnimationPixels fails as an animation naming the setting; its first frame alone decodes")
    func overBudget() throws {
        let data = HostileAnimations.gif(frames: 20, width: 1_000, height: 500)
        let options = ImageDecodeOptions(maxAnimationPixels: 9_999_999)
        let expected = ImagePipeError.limitExceeded(.animationPixels, value: 10_000_000, maximum: 9_999_999)
        #expect(throws: expected) { try coder.decode(data, options: options) }
        #expect(throws: expected) { try coder.animatedImageProvider(for: data, options: options) }
        var firstOnly = options
        firstOnly.firstFrameOnly = true
        let still = try coder.decode(data, options: firstOnly)
        #expect(!still.isAnimated && still.pixelSize == ImageSize(width: 1_000, height: 500))
    }

    @Test("The 20-frame GIF on a 10000x10000 screen is refused under the default budget before a canvas is allocated")
    func hugeScreenUnderDefaults() {
        let data = HostileAnimations.gif(frames: 20, width: 10_000, height: 10_000)
        #expect(data.count < 600)
        #expect(throws: ImagePipeError.limitExceeded(.animationPixels, value: 2_000_000_000, maximum: ImageDecodeOptions.defaultMaxAnimationPixels)) {
            try coder.decode(data, options: ImageDecodeOptions())
        }
    }

    @Test("A GIF's decode reserves its screen from the decode memory budget: output, canvas and restore backup")
    func decodeEstimateCoversCompositor() async throws {
        let data = HostileAnimations.gif(frames: 3, width: 1_000, height: 500)
        let estimate = try #require(coder.decodeEstimate(for: data, options: ImageDecodeOptions()))
        #expect(estimate.outputSize == ImageSize(width: 1_000, height: 500))
        #expect(estimate.bytes == 500_000 * 4 * 3)
        let thumbnail = try #require(coder.decodeEstimate(for: data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100))))
        #expect(thumbnail.outputSize == ImageSize(width: 100, height: 50))
        #expect(thumbnail.bytes == 100 * 50 * 4 + 500_000 * 4 * 3, "the full-size frame before its resample too")
        #expect(coder.decodeEstimate(for: data, options: ImageDecodeOptions(maxPixels: 499_999)) == nil, "refused by its own limit")
        let coders = ImageCodersManager(coders: [coder], decodeMemoryBudget: DecodeMemoryBudget(limitBytes: 5_999_999))
        await #expect(throws: ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 6_000_000, maximum: 5_999_999)) {
            try await coders.decodeImage(data, options: ImageDecodeOptions()) { work in try work() }
        }
    }

    @Test("Encoding a decoded, transformed animation pulls each frame once, in order, and caches none of them")
    func encodeStreamsFrames() throws {
        let source = try coder.decode(HostileAnimations.gif(frames: 12, width: 40, height: 30, rect: 3), options: ImageDecodeOptions())
        let animation = try #require(source.animation)
        let recorder = FrameRecorder(base: animation.provider)
        let recorded = Image(animation: try AnimatedImage(provider: recorder))
        let gray = try GrayscaleTransformer().apply(to: recorded)
        let data = try coder.encode(gray, as: .gif, options: ImageEncodeOptions())
        #expect(recorder.requests == Array(0..<12), "the poster once, then every other frame once, in order")
        #expect(gray.animation?.heldFrameCount == 0 && recorded.animation?.heldFrameCount == 0)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.frameCount == 12)
        for index in [1, 6, 11] {
            #expect(try decoded.frame(at: index).converted(to: .rgba8) == (try gray.frame(at: index).converted(to: .rgba8)))
        }
    }
}

/// A provider passing another's frames through and recording which were asked for, in order.
final class FrameRecorder: AnimatedImageProvider {
    let base: any AnimatedImageProvider
    private let asked = Mutex<[Int]>([])

    init(base: any AnimatedImageProvider) { self.base = base }

    var requests: [Int] { asked.withLock { $0 } }
    var data: Data { base.data }
    var format: ImageFormat { base.format }
    var canvasSize: ImageSize { base.canvasSize }
    var pixelFormat: PixelFormat { base.pixelFormat }
    var frameCount: Int { base.frameCount }
    var loopCount: Int { base.loopCount }
    func duration(at index: Int) -> Double { base.duration(at: index) }
    func frame(at index: Int) throws -> PixelBuffer {
        asked.withLock { $0.append(index) }
        return try base.frame(at: index)
    }
}
