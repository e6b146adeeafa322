import CodersWebP
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("WebP thumbnails and incremental decoding", .dedicatedThreads)
struct WebPDecodingOptionsTests {
    let coder = WebPCoder()

    @Test("A thumbnail box decodes a still at reduced size with the aspect ratio kept")
    func stillThumbnail() throws {
        let data = try Corpus.data("webp", "libwebp-test-data/bryce.webp")
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 400, height: 300))
        let image = try coder.decode(data, options: options)
        #expect(image.pixelSize == options.targetSize(for: ImageSize(width: 11158, height: 2156)))
        #expect(image.pixelSize.width == 400)
        #expect(image.isThumbnail)
    }

    @Test("A still whose libwebp working set is over maxDecoderMemory is refused from its header")
    func decoderMemoryLimit() throws {
        let data = try Corpus.data("webp", "libwebp-test-data/bryce.webp")
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions(maxDecoderMemory: 1 << 20)) }
        guard case .limitExceeded(let limit, let value, 1 << 20) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == .decoderMemory)
        #expect(value == coder.decodeEstimate(for: data, options: ImageDecodeOptions())?.workingBytes)
    }

    @Test("Every frame of an animation is decoded at the thumbnail size")
    func animatedThumbnail() throws {
        let data = try Corpus.data("webp", "sdwebimage-webpcoder/TestImageAnimated.webp")
        let image = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 99, height: 105)))
        #expect(image.isAnimated)
        #expect(image.pixelSize == ImageSize(width: 99, height: 105))
        for index in 0..<image.frameCount { #expect(try image.frame(at: index).size == ImageSize(width: 99, height: 105)) }
    }

    @Test("firstFrameOnly gives a still image of the composited first frame")
    func firstFrameOnly() throws {
        let data = try Corpus.data("webp", "sdwebimage-webpcoder/TestImageBlendAnimated.webp")
        let image = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(!image.isAnimated)
        let full = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.firstFrame == full.firstFrame)
    }

    @Test("Incremental still decode shows rows so far, then the full image")
    func incrementalStill() throws {
        let data = try Corpus.data("webp", "libwebp-test-data/test.webp")
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        decoder.update(data.prefix(20), isComplete: false)
        #expect(try decoder.currentImage() == nil)
        var sawPartial = false
        for cut in stride(from: data.count / 4, to: data.count, by: data.count / 4) {
            decoder.update(data.prefix(cut), isComplete: false)
            if let partial = try decoder.currentImage() {
                #expect(partial.metadata.isIncremental)
                #expect(partial.pixelSize == full.pixelSize)
                sawPartial = true
            }
        }
        #expect(sawPartial)
        decoder.update(data, isComplete: true)
        let final = try #require(try decoder.currentImage())
        #expect(!final.metadata.isIncremental)
        #expect(final.firstFrame == full.firstFrame)
    }

    @Test("Incremental animated decode shows the first frame once it has arrived")
    func incrementalAnimated() throws {
        let data = try Corpus.data("webp", "sdwebimage-webpcoder/TestImageBlendAnimated.webp")
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        decoder.update(data.prefix(data.count * 9 / 10), isComplete: false)
        let partial = try #require(try decoder.currentImage())
        #expect(partial.metadata.isIncremental)
        #expect(!partial.isAnimated)
        #expect(partial.firstFrame.converted(to: .rgba8) == full.firstFrame.converted(to: .rgba8))
        decoder.update(data, isComplete: true)
        #expect(try decoder.currentImage()?.frameCount == full.frameCount)
    }
}
