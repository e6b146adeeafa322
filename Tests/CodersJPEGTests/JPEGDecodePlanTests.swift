import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersJPEG

@Suite("JPEG shrink-on-load", .dedicatedThreads)
struct JPEGDecodePlanTests {
    let coder = JPEGCoder()

    @Test(
        "Thumbnails fit the box and look like the full image scaled down",
        arguments: [
            "exif-orientation-examples/Landscape_1.jpg", "jpeg-decoder/reftest/progressive3.jpg",
            "jpeg-decoder/reftest/mozilla/jpg-cmyk-2.jpg", "jpeg-decoder/crashtest/extraneous-bytes-after-sos.jpg",
        ])
    func thumbnailsMatchScaledFullImage(file: String) throws {
        let data = try Corpus.data("jpeg", file)
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let box = ImageSize(width: 128, height: 128)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        let expected = full.pixelSize.fitted(into: box)
        #expect(thumbnail.pixelSize == expected)
        #expect(thumbnail.isThumbnail)
        let difference = JPEGTestImages.difference(thumbnail.firstFrame, full.firstFrame.resampled(to: expected))
        // Up to 6: the DCT scale may leave as little as 1x to the resample, so the IDCT's own
        // reduction shows (progressive3.jpg, 650x470 into 128: mean 5.6, at 1/4 against 1/2 before).
        #expect(difference.mean < 6, "\(difference)")
    }

    @Test("Stretched boxes and byte budgets give the size asked for; larger boxes never scale up")
    func otherRequests() throws {
        let data = try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg")
        let stretched = try coder.decode(
            data,
            options: ImageDecodeOptions(
                thumbnailPixelSize: ImageSize(width: 40, height: 40), preserveAspectRatio: false))
        #expect(stretched.pixelSize == ImageSize(width: 40, height: 40))
        let budget = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 20_000))
        #expect(budget.pixelSize.width * budget.pixelSize.height * 4 <= 20_000)
        let larger = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 1000, height: 1000)))
        #expect(larger.pixelSize == ImageSize(width: 227, height: 149))
    }

    @Test(
        "The DCT scale is the smallest whose output still covers the target on both sides",
        arguments: [
            (1920, 1200, 512, 320, 2), (1920, 1200, 480, 300, 4), (1920, 1200, 240, 150, 8),
            (1920, 1200, 241, 150, 4), (1920, 1200, 961, 600, 1), (1920, 1200, 1920, 1200, 1),
            (1919, 1199, 480, 300, 4), (100, 100, 1, 1, 8), (1, 1, 1, 1, 1),
            (1000, 100, 500, 90, 1), (1000, 100, 125, 13, 8),
        ])
    func dctScaleCoversTarget(width: Int, height: Int, targetWidth: Int, targetHeight: Int, denominator: Int) {
        let source = ImageSize(width: width, height: height)
        let target = ImageSize(width: targetWidth, height: targetHeight)
        #expect(JPEGDecodePlan.scaleDenominator(from: source, to: target) == denominator)
    }

    @Test("A 3.75x thumbnail decodes at half size and still matches the full image scaled down")
    func halfScaleThumbnailMatchesFullImage() throws {
        let data = try Corpus.data("jpeg", "exif-orientation-examples/Landscape_1.jpg")
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let box = ImageSize(width: Int(Double(full.pixelSize.width) / 3.75), height: Int(Double(full.pixelSize.height) / 3.75))
        let expected = full.pixelSize.fitted(into: box)
        #expect(JPEGDecodePlan.scaleDenominator(from: full.pixelSize, to: expected) == 2)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.pixelSize == expected)
        let difference = JPEGTestImages.difference(thumbnail.firstFrame, full.firstFrame.resampled(to: expected))
        #expect(difference.mean < 3, "\(difference)")
    }
}
