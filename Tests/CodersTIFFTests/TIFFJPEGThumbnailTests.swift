import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersTIFF

/// Thumbnails of JPEG-compressed pages are decoded by libjpeg at 1/2, 1/4 or 1/8 scale: close to
/// the full decode shrunk (the IDCT's reduction is an area average), as JPEG files' thumbnails are.
@Suite("TIFF JPEG thumbnails", .dedicatedThreads)
struct TIFFJPEGThumbnailTests {
    static let boxes = [(ImageSize(width: 24, height: 24), 8), (ImageSize(width: 50, height: 50), 4), (ImageSize(width: 100, height: 100), 2)]

    @Test(
        "a JPEG page's thumbnail is decoded at the DCT scale that covers it, and looks like the full decode shrunk",
        arguments: ["rgb8-jpeg-ycbcr-200.tif", "rgb8-tiled-jpeg-200.tif", "gray8-jpeg-200.tif"])
    func matchesFullDecode(_ file: String) throws {
        let data = try Corpus.data("tiff", file)
        let full = try TIFFCoder().decode(data, options: ImageDecodeOptions())
        for (box, denominator) in Self.boxes {
            let expected = full.pixelSize.fitted(into: box)
            #expect(try Self.denominator(data, target: expected) == denominator, "\(file) at \(box)")
            let thumbnail = try TIFFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
            #expect(thumbnail.pixelSize == expected)
            #expect(thumbnail.pixelFormat == full.pixelFormat)
            #expect(thumbnail.metadata.warnings.isEmpty, "\(thumbnail.metadata.warnings)")
            // The tolerance of CodersJPEG's DCT-scaled thumbnails.
            let difference = Self.meanDifference(thumbnail.firstFrame, full.firstFrame.resampled(to: expected))
            #expect(difference < 3, "\(file) at \(box): mean \(difference) levels")
        }
    }

    @Test("a page of one JPEG strip, YCbCr or RGB, of any height is decoded at a DCT scale", arguments: ["rgb8-jpeg-ycbcr.tif", "rgb8-jpeg-rgb.tif"])
    func oneStripPages(_ file: String) throws {
        let data = try Corpus.data("tiff", file)
        let full = try TIFFCoder().decode(data, options: ImageDecodeOptions())
        for box in [ImageSize(width: 8, height: 8), ImageSize(width: 15, height: 15)] {
            let expected = full.pixelSize.fitted(into: box)
            #expect(try Self.denominator(data, target: expected) > 1)
            let thumbnail = try TIFFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
            #expect(thumbnail.pixelSize == expected)
            let difference = Self.meanDifference(thumbnail.firstFrame, full.firstFrame.resampled(to: expected))
            #expect(difference < 6, "\(file) at \(box): mean \(difference) levels")
        }
    }

    /// Past the page's edge, a tile holds the writer's padding (tiffcp's is black), which a
    /// scaled pixel would average in: 37 x 23 in 16 x 16 tiles is cut after 5 and 7 pixels.
    @Test("tiles cut by the page's edge on no multiple of the scale are left to libtiff")
    func cutTilesAreLeftToLibtiff() throws {
        let data = try Corpus.data("tiff", "rgb8-tiled-jpeg.tif")
        let full = try TIFFCoder().decode(data, options: ImageDecodeOptions())
        let box = ImageSize(width: 15, height: 15)
        #expect(try Self.denominator(data, target: full.pixelSize.fitted(into: box)) == 1)
        let thumbnail = try TIFFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        let difference = try #require(ReferencePAM.maxDifference(thumbnail.firstFrame, full.firstFrame.resampled(to: thumbnail.pixelSize)))
        #expect(difference <= 2)
    }

    @Test("a strip whose JPEG is wider than the page is refused, as libtiff refuses it")
    func mismatchedStripIsRefused() throws {
        // Image width 200 said to be 192: every strip's JPEG is wider than the page says.
        let data = TIFFTagEditor.adding([(256, 4, TIFFTagEditor.long(192))], to: try Corpus.data("tiff", "rgb8-jpeg-ycbcr-200.tif"))
        let box = ImageSize(width: 24, height: 24)
        #expect(throws: ImagePipeError.self) { try TIFFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box)) }
    }

    /// Damage in a strip or tile (or in the tables) ends the scaled decode; libtiff then decodes
    /// the page and says what is wrong, or the thumbnail is made despite it.
    @Test("corrupt JPEG pages make a thumbnail or fail with an ImagePipeError, never crash")
    func corrupt() throws {
        var random = SystemRandomNumberGenerator()
        for file in ["rgb8-jpeg-ycbcr-200.tif", "rgb8-tiled-jpeg-200.tif", "gray8-jpeg-200.tif"] {
            let data = try Corpus.data("tiff", file)
            for _ in 0..<60 {
                var bytes = [UInt8](data)
                for _ in 0..<4 { bytes[Int.random(in: 8..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
                do {
                    let image = try TIFFCoder().decode(Data(bytes), options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 24, height: 24), maxPixels: 1 << 22))
                    #expect(image.pixelSize.width <= 24 && image.pixelSize.height <= 24)
                } catch {
                    #expect(error is ImagePipeError, "\(file): \(error)")
                }
            }
        }
    }

    static func denominator(_ data: Data, target: ImageSize) throws -> Int {
        try TIFFFile.withTIFF(data, options: ImageDecodeOptions()) { file in
            TIFFJPEGScaledDecoder.scaleDenominator(try TIFFPageLayout(file), target: target)
        }
    }

    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.size == b.size, a.format == b.format, !a.bytes.isEmpty else { return .infinity }
        let total = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.bytes.count)
    }
}
