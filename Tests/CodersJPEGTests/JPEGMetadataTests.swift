import CodersJPEG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG EXIF and XMP", .dedicatedThreads)
struct JPEGMetadataTests {
    let coder = JPEGCoder()

    /// An 8x4 JPEG with the fixture EXIF (orientation 6, copyright, GPS) and XMP in APP1.
    func tagged() throws -> Data {
        let plain = try coder.encode(Image(try PixelBuffer(width: 8, height: 4, format: .rgb8, fill: .white)), as: .jpeg, options: ImageEncodeOptions())
        return MetadataFixtures.jpeg(plain, exif: MetadataFixtures.exif(orientation: 6), xmp: MetadataFixtures.xmp())
    }

    @Test("APP1 EXIF and XMP are read as the file has them, and the orientation from the EXIF")
    func reads() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 6)))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp()))
        #expect(image.orientation == .right)
    }

    @Test("EXIF and XMP are written back in APP1; the EXIF says upright, as the pixels are")
    func roundTrips() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        let written = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions())
        let back = try coder.decode(written, options: ImageDecodeOptions())
        #expect(back.pixelSize == ImageSize(width: 4, height: 8))
        #expect(back.orientation == .up)
        let exif = try #require(back.metadata.exif)
        #expect(ExifEditor.rawOrientation(in: exif) == 1)
        #expect(MetadataFixtures.contains(exif, MetadataFixtures.copyright))
        #expect(back.metadata.xmp == Data(MetadataFixtures.xmp()))
        // Without metadata on the image, none is written.
        let bare = try coder.encode(
            image.with {
                $0.exif = nil
                $0.xmp = nil
            }, as: .jpeg, options: ImageEncodeOptions())
        let plain = try coder.decode(bare, options: ImageDecodeOptions())
        #expect(plain.metadata.exif == nil && plain.metadata.xmp == nil)
    }

    @Test("EXIF over maxMetadataBytes is dropped with a warning; its orientation still counts")
    func sizeLimit() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions(maxMetadataBytes: 16))
        #expect(image.metadata.exif == nil && image.metadata.xmp == nil)
        #expect(image.orientation == .right)
        #expect(image.metadata.warnings.filter { $0.kind == .metadataIgnored }.count == 2)
    }
}
