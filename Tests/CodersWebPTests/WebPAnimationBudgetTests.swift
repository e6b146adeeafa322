import CodersWebP
import Foundation
import TestSupport
import Testing

@testable import PipelineCore

@Suite("WebP animation budget and streaming", .dedicatedThreads)
struct WebPAnimationBudgetTests {
    let coder = WebPCoder()

    @Test("The hand-made hostile WebP is what libwebp's own animation decoder reads: one pixel a frame on the canvas")
    func hostileFileIsValid() throws {
        let data = HostileAnimations.webp(frames: 5, width: 64, height: 48)
        let reference = try #require(LibWebPReference.animation(data))
        #expect(reference.frames.count == 5 && reference.width == 64 && reference.height == 48)
        let image = try coder.decode(data, options: ImageDecodeOptions())
        for index in 0..<5 {
            #expect(try image.frame(at: index).converted(to: .rgba8).bytes == reference.frames[index], "frame \(index)")
        }
    }

    @Test("A 1 KB WebP of 20 frames on a 10000x10000 canvas is refused under the default budget, naming the setting, before a canvas is allocated")
    func hugeCanvasUnderDefaults() {
        let data = HostileAnimations.webp(frames: 20, width: 10_000, height: 10_000)
        #expect(data.count < 1_100)
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions()) }
        #expect(error == .limitExceeded(.animationPixels, value: 2_000_000_000, maximum: ImageDecodeOptions.defaultMaxAnimationPixels))
        #expect(error?.description.contains("ImageDecodeOptions.maxAnimationPixels") == true)
    }

    @Test("An animated WebP's decode reserves its canvas from the decode memory budget: poster, canvas and a blended frame")
    func decodeEstimateCoversCanvas() async throws {
        let data = HostileAnimations.webp(frames: 3, width: 1_000, height: 500)
        let estimate = try #require(coder.decodeEstimate(for: data, options: ImageDecodeOptions()))
        #expect(estimate.outputSize == ImageSize(width: 1_000, height: 500))
        #expect(estimate.bytes == 500_000 * 4 * 3)
        let thumbnail = try #require(coder.decodeEstimate(for: data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100))))
        #expect(thumbnail.bytes == 100 * 50 * 4 + 500_000 * 4 * 3, "the full-size frame before its resample too")
        let coders = ImageCodersManager(coders: [coder], decodeMemoryBudget: DecodeMemoryBudget(limitBytes: 5_999_999))
        await #expect(throws: ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 6_000_000, maximum: 5_999_999)) {
            try await coders.decodeImage(data, options: ImageDecodeOptions()) { work in try work() }
        }
    }

    @Test("An opaque full-canvas animation (decoded frame by frame, with no canvas) stops for cancellation and a spent time budget")
    func opaqueFramesStopWhenAsked() throws {
        let data = HostileAnimations.webpFullFrames(frames: 3, width: 32, height: 24)
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 3 && image.pixelFormat == .rgb8, "the opaque path")
        let cancellation = DecodeCancellation()
        cancellation.cancel()
        let cancelled = #expect(throws: ImagePipeError.self) {
            try DecodeCancellation.$current.withValue(cancellation) { try image.frame(at: 2) }
        }
        #expect(cancelled == .cancelled)
        let late = #expect(throws: ImagePipeError.self) {
            try coder.decode(data, options: ImageDecodeOptions(maxDecodeTime: .seconds(-1))).frame(at: 2)
        }
        guard case .limitExceeded(let limit, _, _) = late else {
            Issue.record("got \(String(describing: late))")
            return
        }
        #expect(limit == .decodeTime)
    }

    @Test("Re-encoding a decoded animation walks its frames without filling the frame cache, and keeps them")
    func encodeStreamsFrames() throws {
        let source = try coder.decode(HostileAnimations.webp(frames: 9, width: 30, height: 20), options: ImageDecodeOptions())
        let data = try coder.encode(source, as: .webp, options: ImageEncodeOptions(lossless: true))
        #expect(source.animation?.heldFrameCount == 0)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.frameCount == 9)
        for index in 0..<9 {
            #expect(try decoded.frame(at: index).converted(to: .rgba8) == (try source.frame(at: index).converted(to: .rgba8)), "frame \(index)")
        }
    }
}
