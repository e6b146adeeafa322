import CodersWebP
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("WebP EXIF and XMP", .dedicatedThreads)
struct WebPMetadataTests {
    let coder = WebPCoder()

    /// An 8x4 extended WebP with the fixture EXIF (orientation 6, copyright, GPS) and XMP chunks.
    func tagged() throws -> Data {
        let plain = try coder.encode(Image(try PixelBuffer(width: 8, height: 4, format: .rgb8, fill: .white)), as: .webp, options: ImageEncodeOptions())
        return MetadataFixtures.webP(plain, exif: MetadataFixtures.exif(orientation: 6), xmp: MetadataFixtures.xmp(), width: 8, height: 4)
    }

    @Test("EXIF and XMP chunks are read, and the orientation from the EXIF, as libvips and browsers do")
    func reads() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 6)))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp()))
        #expect(image.orientation == .right)
        #expect(image.displaySize == ImageSize(width: 4, height: 8))
    }

    @Test("EXIF and XMP are written back through the mux; pixels and EXIF come out upright")
    func roundTrips() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        let back = try coder.decode(try coder.encode(image, as: .webp, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(back.pixelSize == ImageSize(width: 4, height: 8) && back.orientation == .up)
        let exif = try #require(back.metadata.exif)
        #expect(ExifEditor.rawOrientation(in: exif) == 1)
        #expect(MetadataFixtures.contains(exif, MetadataFixtures.copyright))
        #expect(back.metadata.xmp == Data(MetadataFixtures.xmp()))
    }
}
