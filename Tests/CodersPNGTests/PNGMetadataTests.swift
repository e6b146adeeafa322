import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("PNG EXIF and XMP", .dedicatedThreads)
struct PNGMetadataTests {
    let coder = PNGCoder()

    /// An 8x4 PNG with the fixture EXIF (orientation 6, copyright, GPS) in eXIf and XMP in iTXt.
    func tagged(xmpAfterImage: Bool = false) throws -> Data {
        let pixels = try PixelBuffer(width: 8, height: 4, format: .rgb8, bytes: (0..<8 * 4 * 3).map { UInt8($0) })
        let plain = try coder.encode(Image(pixels), as: .png, options: ImageEncodeOptions())
        return MetadataFixtures.png(plain, exif: MetadataFixtures.exif(orientation: 6), xmp: MetadataFixtures.xmp())
    }

    @Test("eXIf and iTXt XMP are read; eXIf orientation 6 comes out upright when applied")
    func reads() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 6)))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp()))
        #expect(image.orientation == .right)
        let upright = try image.applyingOrientation()
        #expect(upright.pixelSize == ImageSize(width: 4, height: 8))
        // Stored pixel (0, 3), bottom-left, is the upright top-left once turned 90° clockwise.
        #expect(upright.firstFrame.color(x: 0, y: 0) == image.firstFrame.color(x: 0, y: 3))
    }

    @Test("EXIF and XMP are written back in eXIf and iTXt; the EXIF says upright, as the pixels are")
    func roundTrips() throws {
        let image = try coder.decode(try tagged(), options: ImageDecodeOptions())
        let back = try coder.decode(try coder.encode(image, as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(back.pixelSize == ImageSize(width: 4, height: 8) && back.orientation == .up)
        let exif = try #require(back.metadata.exif)
        #expect(ExifEditor.rawOrientation(in: exif) == 1)
        #expect(MetadataFixtures.contains(exif, MetadataFixtures.copyright))
        #expect(back.metadata.xmp == Data(MetadataFixtures.xmp()))
    }

    @Test("A metadata chunk with a bad CRC is ignored; one over maxMetadataBytes gives a warning")
    func damagedAndOversized() throws {
        var damaged = [UInt8](try tagged())
        let exifAt = try #require((0..<damaged.count - 4).first { damaged[$0..<$0 + 4].elementsEqual("eXIf".utf8) })
        damaged[exifAt + 10] ^= 0xFF
        let image = try coder.decode(Data(damaged), options: ImageDecodeOptions())
        #expect(image.metadata.exif == nil && image.orientation == .up)
        #expect(image.metadata.xmp != nil)
        let limited = try coder.decode(try tagged(), options: ImageDecodeOptions(maxMetadataBytes: 16))
        #expect(limited.metadata.exif == nil && limited.metadata.xmp == nil && limited.orientation == .right)
        #expect(limited.metadata.warnings.filter { $0.kind == .metadataIgnored }.count == 2)
    }
}
