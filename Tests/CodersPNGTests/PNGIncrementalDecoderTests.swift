import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("PNG progressive decoding", .dedicatedThreads)
struct PNGIncrementalDecoderTests {
    let coder = PNGCoder()

    /// Feeds `data` in `chunk`-byte steps, checking every partial image on the way.
    func feed(_ data: Data, chunk: Int, options: ImageDecodeOptions = ImageDecodeOptions()) throws -> (final: Image?, partials: [Image]) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var partials: [Image] = []
        var end = 0
        while end < data.count {
            end = min(end + chunk, data.count)
            decoder.update(data.prefix(end), isComplete: end == data.count)
            if let image = try decoder.currentImage(), end < data.count { partials.append(image) }
        }
        return (try decoder.currentImage(), partials)
    }

    @Test(
        "Fed in pieces, a PNG ends as exactly the one-shot image, showing growing partial images on the way",
        arguments: ["basn6a08.png", "basi6a08.png", "basn0g16.png", "basi3p02.png", "s37n3p04.png"])
    func endsLikeOneShot(file: String) throws {
        let data = try Corpus.data("pngsuite", file)
        let oneShot = try coder.decode(data, options: ImageDecodeOptions())
        let (final, partials) = try feed(data, chunk: 97)
        let image = try #require(final)
        #expect(!image.metadata.isIncremental)
        #expect(image.firstFrame == oneShot.firstFrame)
        for partial in partials {
            #expect(partial.metadata.isIncremental)
            #expect(partial.pixelSize.width <= image.pixelSize.width && partial.pixelSize.height <= image.pixelSize.height)
        }
    }

    @Test("A large non-interlaced PNG shows more rows as bytes arrive, top rows already final")
    func rowsGrow() throws {
        let source = try PNGTestImages.gradient(width: 300, height: 200, format: .rgb8)
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionLevel] = 0
        let data = try coder.encode(Image(source), as: .png, options: options)
        let (final, partials) = try feed(data, chunk: data.count / 7)
        #expect(partials.count >= 4)
        let heights = partials.map(\.pixelSize.height)
        #expect(heights == heights.sorted())
        #expect(heights.first! < 200)
        let first = try #require(partials.first).firstFrame
        #expect(first.bytes == Array(source.bytes.prefix(first.bytes.count)))
        #expect(try #require(final).firstFrame == source)
    }

    @Test("With a thumbnail box, partial images are scaled like the final one and never larger")
    func partialsFollowThumbnailBox() throws {
        let source = try PNGTestImages.gradient(width: 400, height: 400, format: .rgba8)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions())
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 50, height: 50))
        let (final, partials) = try feed(data, chunk: data.count / 5, options: options)
        #expect(try #require(final).pixelSize == ImageSize(width: 50, height: 50))
        #expect(!partials.isEmpty)
        for partial in partials { #expect(partial.pixelSize.width == 50 && partial.pixelSize.height <= 50) }
    }

    @Test("Corrupt data and bomb headers fail with typed errors")
    func failures() throws {
        let bomb = Data(PNGTestImages.signature + PNGTestImages.ihdr(width: 50_000, height: 50_000))
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        decoder.update(bomb, isComplete: false)
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 2_500_000_000, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try decoder.currentImage()
        }
        let corrupt = try Corpus.data("pngsuite", "xcsn0g01.png")
        let (partial, _) = (try? feed(corrupt, chunk: 20)) ?? (nil, [])
        #expect(partial == nil)
        let complete = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        complete.update(corrupt, isComplete: true)
        #expect(throws: ImagePipeError.self) { try complete.currentImage() }
    }
}
