import CodersJPEG
import Foundation
import PipelineCore
import Testing
import TestSupport

@Suite("JPEG shrink-on-load", .dedicatedThreads)
struct JPEGDecodePlanTests {
    let coder = JPEGCoder()

    @Test("Thumbnails fit the box and look like the full image scaled down",
          arguments: ["exif-orientation-examples/Landscape_1.jpg", "jpeg-decoder/reftest/progressive3.jpg",
                      "jpeg-decoder/reftest/mozilla/jpg-cmyk-2.jpg", "jpeg-decoder/crashtest/extraneous-bytes-after-sos.jpg"])
    func thumbnailsMatchScaledFullImage(file: String) throws {
        let data = try Corpus.data("jpeg", file)
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let box = ImageSize(width: 128, height: 128)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        let expected = full.pixelSize.fitted(into: box)
        #expect(thumbnail.pixelSize == expected)
        #expect(thumbnail.isThumbnail)
        let difference = JPEGTestImages.difference(thumbnail.firstFrame, full.firstFrame.resampled(to: expected))
        #expect(difference.mean < 5, "\(difference)")
    }

    @Test("Stretched boxes and byte budgets give the size asked for; larger boxes never scale up")
    func otherRequests() throws {
        let data = try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg")
        let stretched = try coder.decode(data, options: ImageDecodeOptions(
            thumbnailPixelSize: ImageSize(width: 40, height: 40), preserveAspectRatio: false))
        #expect(stretched.pixelSize == ImageSize(width: 40, height: 40))
        let budget = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 20_000))
        #expect(budget.pixelSize.width * budget.pixelSize.height * 4 <= 20_000)
        let larger = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 1000, height: 1000)))
        #expect(larger.pixelSize == ImageSize(width: 227, height: 149))
    }
}
