import CodersTIFF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Every layout of `Tests/Fixtures/corpus/tiff` decodes to what netpbm's tifftopnm (libtiff's
/// reader) made of it, within 1 level per channel.
@Suite("TIFF layouts decode as libtiff's own reader shows them", .dedicatedThreads)
struct TIFFLayoutTests {
    static let rows = Corpus.rows("tiff")
    static let stills = rows.filter { $0.frames == 1 && !$0.file.hasPrefix("orientation") }

    /// The reference pixels of `file` (all pages), and whether they are stored premultiplied.
    static func reference(_ file: String) throws -> (pages: [PixelBuffer], premultiplied: Bool) {
        let name = (file as NSString).deletingPathExtension
        let folder = Corpus.root.appendingPathComponent("tiff/reference")
        for (suffix, premultiplied) in [("pam", false), ("premultiplied.pam", true)] {
            if let pages = ReferencePAM.read(folder.appendingPathComponent("\(name).\(suffix)")) { return (pages, premultiplied) }
        }
        throw ReferenceMissing(file: file)
    }

    struct ReferenceMissing: Error { let file: String }

    static func difference(_ decoded: PixelBuffer, _ reference: PixelBuffer, premultiplied: Bool) -> Int? {
        guard premultiplied else { return ReferencePAM.maxDifference(decoded, reference) }
        return ReferencePAM.maxDifference(ReferencePAM.premultiplied(decoded.converted(to: reference.format)), reference)
    }

    @Test("the manifest lists every layout the fixtures script makes")
    func manifest() {
        #expect(Self.rows.count == 41)
        #expect(Self.stills.count == 39)
    }

    @Test("decodes within 1 level of tifftopnm", arguments: stills)
    func decodes(_ row: Corpus.Row) throws {
        let image = try TIFFCoder().decode(try Data(contentsOf: row.url), options: ImageDecodeOptions())
        let (pages, premultiplied) = try Self.reference(row.file)
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.format == .tiff)
        #expect(image.frameCount == 1)
        let difference = try #require(Self.difference(image.firstFrame, pages[0], premultiplied: premultiplied))
        #expect(difference <= 1, "\(row.file): \(image.pixelFormat) differs by \(difference) levels")
        #expect(image.metadata.warnings.isEmpty, "\(image.metadata.warnings)")
    }

    @Test("keeps the narrowest pixel format the file has")
    func pixelFormats() throws {
        let expected: [String: PixelFormat] = [
            "gray8-none.tif": .gray8, "gray16-none.tif": .gray8, "gray1-g4.tif": .gray8, "gray4-none.tif": .gray8,
            "graya8-unassociated.tif": .grayAlpha8, "rgb8-none.tif": .rgb8, "rgb16-tiled-zip.tif": .rgb8,
            "rgba8-lzw.tif": .rgba8, "rgba8-associated.tif": .rgba8, "palette-lzw.tif": .rgb8, "cmyk8-none.tif": .rgb8,
            "ycbcr-420-none.tif": .rgb8, "rgb8-jpeg-ycbcr.tif": .rgb8,
        ]
        for (file, format) in expected {
            let image = try TIFFCoder().decode(try Corpus.data("tiff", file), options: ImageDecodeOptions())
            #expect(image.pixelFormat == format, "\(file)")
        }
    }

    @Test("the orientation tag goes on the image over the stored pixels, and applying it turns them upright")
    func orientation() throws {
        let image = try TIFFCoder().decode(try Corpus.data("tiff", "orientation6.tif"), options: ImageDecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.pixelSize == ImageSize(width: 37, height: 23))
        let stored = try Self.reference("orientation6.tif").pages[0]
        #expect(ReferencePAM.maxDifference(image.firstFrame, stored) == 0)
        // Orientation 6: the stored left column, bottom to top, is the shown top row.
        let upright = try image.applyingOrientation()
        #expect(upright.pixelSize == ImageSize(width: 23, height: 37))
        #expect(upright.firstFrame.color(x: 0, y: 0) == stored.color(x: 0, y: 22))
        #expect(upright.firstFrame.color(x: 22, y: 0) == stored.color(x: 0, y: 0))
    }

    @Test("a multi-page file is an animation of its pages, without the reduced-resolution copy")
    func pages() throws {
        let data = try Corpus.data("tiff", "multipage.tif")
        let image = try TIFFCoder().decode(data, options: ImageDecodeOptions())
        let reference = try Self.reference("multipage.tif").pages
        #expect(reference.count == 4)
        #expect(image.frameCount == 3)
        #expect(image.pixelFormat == .rgb8)
        for page in 0..<3 {
            let frame = try image.frame(at: page)
            #expect(ReferencePAM.maxDifference(frame, reference[page]) == 0, "page \(page)")
            #expect(image.duration(at: page) == 1)
        }
        let first = try TIFFCoder().decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(first.frameCount == 1)
        #expect(ReferencePAM.maxDifference(first.firstFrame, reference[0]) == 0)
    }

    @Test("an ICC profile and an XMP packet are handed over")
    func metadata() throws {
        let profile = ColorFixtures.displayP3Profile()
        let xmp = Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
        let data = TIFFTagEditor.adding([(34675, 7, profile), (700, 1, xmp)], to: try Corpus.data("tiff", "rgb8-none.tif"))
        let image = try TIFFCoder().decode(data, options: ImageDecodeOptions(metadataHandling: .keep))
        #expect(image.metadata.colorProfile == .icc(profile))
        #expect(image.metadata.xmp == xmp)
    }
}
