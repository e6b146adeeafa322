import CodersJPEG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG EXIF orientation", .dedicatedThreads)
struct JPEGOrientationTests {
    let coder = JPEGCoder()

    @Test(
        "The EXIF orientation is recorded, not applied; applying it shows the photo upright",
        arguments: ["Landscape", "Portrait"], 0...8)
    func recordsAndApplies(shape: String, tag: Int) throws {
        let data = try Corpus.data("jpeg", "exif-orientation-examples/\(shape)_\(tag).jpg")
        // Thumbnails keep the test quick; orientation is recorded the same way at any size.
        let image = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 300, height: 300)))
        #expect(image.orientation == ImageOrientation(exifValue: tag))
        #expect(image.orientation.rawValue == max(tag, 1), "tag 0 means upright")
        let upright = try image.applyingOrientation()
        #expect(upright.orientation == .up)
        let isLandscape = upright.pixelSize.width > upright.pixelSize.height
        #expect(isLandscape == (shape == "Landscape"))
        #expect(upright.pixelSize == ImageSize(width: isLandscape ? 300 : 200, height: isLandscape ? 200 : 300))
    }

    @Test("At full size every Landscape file shows an upright 1800x1200 photo")
    func fullSizeDisplay() throws {
        for tag in [0, 3, 6, 8] {
            let image = try coder.decode(try Corpus.data("jpeg", "exif-orientation-examples/Landscape_\(tag).jpg"), options: ImageDecodeOptions())
            #expect(image.displaySize == ImageSize(width: 1800, height: 1200))
            #expect(try image.applyingOrientation().pixelSize == ImageSize(width: 1800, height: 1200))
        }
    }

    @Test("Once turned upright, all eight orientations show the same picture", arguments: ["Landscape", "Portrait"])
    func uprightPicturesAgree(shape: String) throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 240, height: 240))
        let reference = try coder.decode(try Corpus.data("jpeg", "exif-orientation-examples/\(shape)_1.jpg"), options: options)
        for tag in 2...8 {
            let image = try coder.decode(try Corpus.data("jpeg", "exif-orientation-examples/\(shape)_\(tag).jpg"), options: options)
            let difference = JPEGTestImages.difference(try image.applyingOrientation().firstFrame, reference.firstFrame)
            #expect(difference.mean < 4, "\(shape)_\(tag): \(difference)")
        }
        // A wrongly turned picture is far off: the check above can tell.
        let unturned = try coder.decode(try Corpus.data("jpeg", "exif-orientation-examples/\(shape)_3.jpg"), options: options)
        #expect(JPEGTestImages.difference(unturned.firstFrame, reference.firstFrame).mean > 10)
    }
}
