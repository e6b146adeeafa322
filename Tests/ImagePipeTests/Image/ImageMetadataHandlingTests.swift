import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// A coder that puts the fixture EXIF (orientation 6, with GPS) and an XMP packet on
/// `TestCoder`'s images, as a JPEG coder reading them would.
private struct MetadataCoder: ImageCoder {
    let base = TestCoder()
    var xmpWithGPS = false

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        var image = try base.decode(data, options: options)
        image.orientation = .right
        image.metadata.exif = Data(MetadataFixtures.exif(orientation: 6))
        image.metadata.xmp = Data(MetadataFixtures.xmp(withGPS: xmpWithGPS))
        return image
    }

    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { Data() }
}

@Suite("EXIF and XMP in the decode step")
struct ImageMetadataHandlingTests {
    let data = TestCoder.sample(width: 4, height: 2)

    func decode(_ handling: ImageMetadataHandling, xmpWithGPS: Bool = false) throws -> Image {
        let coders = ImageCodersManager(coders: [MetadataCoder(xmpWithGPS: xmpWithGPS)])
        return try coders.decodeImage(data, options: ImageDecodeOptions(metadataHandling: handling), colorConverters: ImageColorConvertersManager())
    }

    @Test("By default EXIF and XMP are stripped, the orientation kept, and the file's bytes no longer stand for the image")
    func stripsByDefault() throws {
        #expect(ImageDecodeOptions().metadataHandling == .strip)
        let image = try decode(.default)
        #expect(image.metadata.exif == nil && image.metadata.xmp == nil)
        #expect(image.orientation == .right)
        #expect(image.metadata.removedMetadata)
    }

    @Test("Keeping them keeps copyright and XMP, never the GPS IFD")
    func keepsWithoutGPS() throws {
        let image = try decode(.keep)
        let exif = try #require(image.metadata.exif)
        #expect(MetadataFixtures.ifd0Tags(exif) == [0x0112, 0x013B, 0x8298])
        #expect(MetadataFixtures.contains(exif, MetadataFixtures.copyright))
        #expect(!MetadataFixtures.contains(exif, MetadataFixtures.gpsMarker))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp()))
        #expect(image.metadata.removedMetadata)
    }

    @Test("keepAll keeps EXIF and XMP as decoded, GPS included")
    func keepsAll() throws {
        let image = try decode(.keepAll, xmpWithGPS: true)
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 6)))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp(withGPS: true)))
        #expect(!image.metadata.removedMetadata)
    }

    @Test("An XMP packet with GPS properties is dropped when kept")
    func dropsXMPWithGPS() throws {
        #expect(try decode(.keep, xmpWithGPS: true).metadata.xmp == nil)
        #expect(ImageMetadataHandling.mentionsGPS(Data("<drone-dji:GpsLatitude>1</drone-dji:GpsLatitude>".utf8)))
        #expect(!ImageMetadataHandling.mentionsGPS(Data(MetadataFixtures.xmp())))
    }

    @Test("GPS properties in the default namespace or in a UTF-16 packet are found too")
    func findsGPSWithoutPrefixOrInUTF16() {
        let unprefixed = "<rdf:Description><GPSLatitude xmlns=\"http://ns.adobe.com/exif/1.0/\">51,30.0N</GPSLatitude></rdf:Description>"
        #expect(ImageMetadataHandling.mentionsGPS(Data(unprefixed.utf8)))
        let prefixed = "<rdf:Description exif:GPSLatitude=\"51,30.0N\"/>"
        #expect(ImageMetadataHandling.mentionsGPS(Data(prefixed.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })))
        #expect(!ImageMetadataHandling.mentionsGPS(Data("<dc:rights>gps-free</dc:rights>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })))
    }

    @Test("Turning the pixels upright sets the EXIF orientation to 1; transforms keep EXIF and XMP")
    func uprightResetsOrientation() throws {
        let image = try decode(.keep)
        #expect(ExifEditor.rawOrientation(in: image.metadata.exif!) == 6)
        let upright = try image.applyingOrientation()
        #expect(upright.orientation == .up && upright.pixelSize == ImageSize(width: 2, height: 4))
        #expect(ExifEditor.rawOrientation(in: upright.metadata.exif!) == 1)
        let resized = try ResizingTransformer(size: ImageSize(width: 1, height: 2)).apply(to: image)
        #expect(ExifEditor.rawOrientation(in: try #require(resized.metadata.exif)) == 1)
        #expect(resized.metadata.xmp == image.metadata.xmp)
        #expect(MetadataFixtures.contains(resized.metadata.exif!, MetadataFixtures.copyright))
    }

    @Test("The context's metadataHandling reaches the decode options and the final cache key")
    func contextKey() {
        var context = ImageContext()
        context[.metadataHandling] = .keep
        #expect(ImageDecodeOptions(options: [], context: context).metadataHandling == .keep)
        let url = URL(string: "https://example.com/a.jpg")!
        let keys = ImageCacheKeys(url: url, context: context, settings: ImageManager.SettingsSnapshot(ImageManager.Settings()))
        #expect(keys.final == "https://example.com/a-Metadata(keep).jpg")
        #expect(keys.original == "https://example.com/a.jpg")
        #expect(ImageCacheKeys(url: url, context: ImageContext(), settings: ImageManager.SettingsSnapshot(ImageManager.Settings())).final == "https://example.com/a.jpg")
    }

    @Test("Metadata the coder did not read means the file's bytes no longer represent the image, unless all is kept")
    func unreadMetadata() throws {
        var image = Image(try PixelBuffer(width: 2, height: 2, format: .rgb8), format: .png)
        let data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40))
        #expect(ImageMetadataHandling.strip.apply(to: image).isRepresented(by: data, as: .png))
        image.metadata.hasUnreadMetadata = true
        for handling in [ImageMetadataHandling.strip, .keep] {
            let handled = handling.apply(to: image)
            #expect(handled.metadata.removedMetadata && handled.metadata.hasUnreadMetadata)
            #expect(!handled.isRepresented(by: data, as: .png))
        }
        #expect(!ImageMetadataHandling.keepAll.apply(to: image).metadata.removedMetadata)
        // A transform keeps the flag: its output still comes from that file.
        let resized = try ResizingTransformer(size: ImageSize(width: 1, height: 1)).apply(to: image)
        #expect(resized.metadata.hasUnreadMetadata)
    }

    @Test("A block over maxMetadataBytes is dropped with a warning naming the setting")
    func sizeLimit() {
        let options = ImageDecodeOptions(maxMetadataBytes: 10)
        let (kept, warning) = options.acceptingMetadata(Data(count: 11), kind: "EXIF", format: "JPEG")
        #expect(kept == nil)
        #expect(warning?.kind == .metadataIgnored)
        #expect(warning?.message.contains("ImageDecodeOptions.maxMetadataBytes") == true)
        #expect(options.acceptingMetadata(Data(count: 10), kind: "EXIF", format: "JPEG").0 == Data(count: 10))
    }
}
