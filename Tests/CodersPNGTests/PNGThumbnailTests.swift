import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("PNG thumbnails", .dedicatedThreads)
struct PNGThumbnailTests {
    let coder = PNGCoder()

    @Test(
        "A thumbnail fits the box, keeps the aspect ratio and looks like the full image scaled down",
        arguments: [PixelFormat.rgb8, .rgba8, .gray8, .grayAlpha8])
    func thumbnailMatchesScaledFullImage(format: PixelFormat) throws {
        let source = try PNGTestImages.gradient(width: 1200, height: 800, format: format)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions())
        let box = ImageSize(width: 256, height: 256)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.pixelSize == ImageSize(width: 256, height: 171))
        #expect(thumbnail.isThumbnail)
        #expect(thumbnail.pixelFormat == format)
        let reference = source.resampled(to: thumbnail.pixelSize)
        #expect(PNGTestImages.maxDifference(thumbnail.firstFrame, reference) <= 3)
    }

    @Test("Interlaced files, stretched boxes and byte budgets give the size asked for")
    func otherThumbnailRequests() throws {
        let interlaced = try Corpus.data("pngsuite", "basi2c08.png")
        let small = try coder.decode(interlaced, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 8, height: 8)))
        #expect(small.pixelSize == ImageSize(width: 8, height: 8))

        let source = try PNGTestImages.gradient(width: 900, height: 300, format: .rgb8)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions())
        let stretched = try coder.decode(
            data,
            options: ImageDecodeOptions(
                thumbnailPixelSize: ImageSize(width: 100, height: 100), preserveAspectRatio: false))
        #expect(stretched.pixelSize == ImageSize(width: 100, height: 100))
        let budget = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 40_000))
        #expect(budget.pixelSize.width * budget.pixelSize.height * 4 <= 40_000)
        #expect(budget.pixelSize.width > budget.pixelSize.height * 2)
        // A box larger than the image never scales up.
        let larger = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 4000, height: 4000)))
        #expect(larger.pixelSize == source.size)
        #expect(larger.firstFrame == source)
    }
}

@Suite("PNG row shrinking", .dedicatedThreads)
struct PNGRowShrinkingTests {
    @Test("Boxes average their pixels, weighting colour by alpha so hidden colours do not bleed")
    func averagesWeightedByAlpha() throws {
        let thumb = try PNGCoder().decode(
            try PNGCoder().encode(
                Image(
                    PixelBuffer(
                        width: 4, height: 4, format: .rgba8,
                        bytes: Array(repeating: [255, 0, 0, 255, 0, 0, 255, 0], count: 8).flatMap { $0 }
                    )), as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 1, height: 1)))
        let pixel = thumb.firstFrame.color(x: 0, y: 0)
        #expect(pixel.red >= 250 && pixel.blue <= 5, "the invisible blue must not tint the thumbnail: \(pixel)")
        #expect((120...135).contains(Int(pixel.alpha)))
    }
}
