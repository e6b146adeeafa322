import CodersPNG
import Foundation
import PipelineCore
import Testing
import TestSupport

@Suite("PNG encoding")
struct PNGEncoderTests {
    let coder = PNGCoder()

    @Test("Encoding and decoding gives back the same pixels at every compression level",
          arguments: [PixelFormat.rgba8, .rgb8, .gray8, .grayAlpha8], [0, 1, 6, 9])
    func roundTrip(format: PixelFormat, level: Int) throws {
        let source = try PNGTestImages.gradient(width: 61, height: 37, format: format)
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionLevel] = level
        let data = try coder.encode(Image(source), as: .png, options: options)
        #expect(ImageFormat.detect(in: data) == .png)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == format)
        #expect(decoded.firstFrame == source)
    }

    @Test("Higher compression levels give smaller files")
    func levelsShrinkFiles() throws {
        let source = try PNGTestImages.gradient(width: 200, height: 200, format: .rgb8)
        func size(_ level: Int) throws -> Int {
            var options = ImageEncodeOptions()
            options.extras[.pngCompressionLevel] = level
            return try coder.encode(Image(source), as: .png, options: options).count
        }
        #expect(try size(9) < size(0))
        #expect(try size(0) > 200 * 200 * 3)
    }

    @Test("An opaque RGBA image is written without alpha, a gray RGB one as gray")
    func writesNarrowestColourType() throws {
        let opaque = try PixelBuffer(width: 3, height: 2, format: .rgba8, fill: ImageColor(red: 10, green: 20, blue: 30))
        #expect(try coder.decode(coder.encode(Image(opaque), as: .png, options: ImageEncodeOptions()),
                                 options: ImageDecodeOptions()).pixelFormat == .rgb8)
        let gray = try PixelBuffer(width: 3, height: 2, format: .rgb8, fill: ImageColor(red: 90, green: 90, blue: 90))
        let decoded = try coder.decode(coder.encode(Image(gray), as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == .gray8)
        #expect(decoded.firstFrame.color(x: 2, y: 1) == ImageColor(red: 90, green: 90, blue: 90))
    }

    @Test("maxPixelSize scales the image down into the box before writing")
    func maxPixelSizeScalesDown() throws {
        let source = try PNGTestImages.gradient(width: 400, height: 100, format: .rgb8)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 100, height: 100)))
        #expect(try coder.decode(data, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 100, height: 25))
    }

    @Test("Pixels are written upright: an orientation on the image is applied first")
    func appliesOrientation() throws {
        let source = try PNGTestImages.gradient(width: 40, height: 10, format: .rgb8)
        let data = try coder.encode(Image(source, orientation: .right), as: .png, options: ImageEncodeOptions())
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == ImageSize(width: 10, height: 40))
        #expect(decoded.firstFrame == source.applying(.right))
    }

    @Test("Other formats are refused")
    func refusesOtherFormats() throws {
        let source = try PixelBuffer(width: 2, height: 2, format: .rgb8)
        #expect(!coder.canEncode(to: .jpeg))
        #expect(throws: ImagePipeError.self) { try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions()) }
    }
}
