import CodersJPEG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG progressive decoding", .dedicatedThreads)
struct JPEGIncrementalDecoderTests {
    let coder = JPEGCoder()

    func feed(_ data: Data, pieces: Int, options: ImageDecodeOptions = ImageDecodeOptions()) throws -> (final: Image?, partials: [Image]) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var partials: [Image] = []
        let step = max(data.count / pieces, 1)
        var end = 0
        while end < data.count {
            end = min(end + step, data.count)
            decoder.update(data.prefix(end), isComplete: end == data.count)
            if end < data.count, let image = try decoder.currentImage() { partials.append(image) }
        }
        return (try decoder.currentImage(), partials)
    }

    @Test("A progressive JPEG shows the whole picture after each completed scan and ends as the one-shot image")
    func progressiveScans() throws {
        let data = try Corpus.data("jpeg", "jpeg-decoder/reftest/progressive3.jpg")
        let oneShot = try coder.decode(data, options: ImageDecodeOptions())
        let (final, partials) = try feed(data, pieces: 12)
        #expect(try #require(final).firstFrame == oneShot.firstFrame)
        #expect(partials.count >= 3)
        for partial in partials {
            #expect(partial.metadata.isIncremental)
            #expect(partial.pixelSize == ImageSize(width: 650, height: 470))
        }
        // Later scans refine the picture: the last partial is closer to the final image than the first.
        let first = JPEGTestImages.difference(partials.first!.firstFrame, oneShot.firstFrame).mean
        let last = JPEGTestImages.difference(partials.last!.firstFrame, oneShot.firstFrame).mean
        #expect(last < first)
    }

    @Test(
        "A baseline JPEG shows the rows decoded so far, growing, and ends as the one-shot image",
        arguments: ["libjpeg-turbo/testorig.jpg", "exif-orientation-examples/Landscape_6.jpg", "jpeg-decoder/reftest/mozilla/jpg-cmyk-2.jpg"])
    func baselineRows(file: String) throws {
        let data = try Corpus.data("jpeg", file)
        let oneShot = try coder.decode(data, options: ImageDecodeOptions())
        let (final, partials) = try feed(data, pieces: 8)
        let image = try #require(final)
        #expect(image.firstFrame == oneShot.firstFrame)
        #expect(image.orientation == oneShot.orientation)
        #expect(partials.count >= 3)
        let heights = partials.map(\.pixelSize.height)
        #expect(heights == heights.sorted())
        #expect(heights.allSatisfy { $0 <= oneShot.pixelSize.height })
        #expect(partials.allSatisfy { $0.pixelSize.width == oneShot.pixelSize.width && $0.orientation == oneShot.orientation })
    }

    @Test(
        "With a thumbnail box, partial images are never larger than the final thumbnail",
        arguments: ["exif-orientation-examples/Portrait_1.jpg", "jpeg-decoder/reftest/progressive3.jpg"])
    func partialsFollowThumbnailBox(file: String) throws {
        let data = try Corpus.data("jpeg", file)
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100))
        let (final, partials) = try feed(data, pieces: 6, options: options)
        let image = try #require(final)
        #expect(image.firstFrame == (try coder.decode(data, options: options)).firstFrame)
        #expect(!partials.isEmpty)
        for partial in partials {
            #expect(partial.pixelSize.width <= image.pixelSize.width && partial.pixelSize.height <= image.pixelSize.height)
        }
    }

    @Test("Bomb headers and unsupported files fail with typed errors before the end")
    func failures() throws {
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xEA, 0x60, 0xEA, 0x60, 0x01, 0x01, 0x11, 0x00]
        let bomb = try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg").prefix(2) + Data(sof)
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        decoder.update(bomb, isComplete: false)
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 3_600_000_000, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try decoder.currentImage()
        }
        let twelveBit = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        let monkey = try Corpus.data("jpeg", "libjpeg-turbo/monkey12.jpg")
        twelveBit.update(monkey.prefix(monkey.count - 1), isComplete: false)
        #expect(throws: ImagePipeError.self) { try twelveBit.currentImage() }
    }
}
