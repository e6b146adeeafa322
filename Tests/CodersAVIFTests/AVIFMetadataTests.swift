import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// ICC, EXIF and XMP reach `ImageMetadata` as other coders hand them over, and survive an encode.
@Suite(.enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
struct AVIFMetadataTests {
    static func tagged() throws -> Data {
        let files = [
            ("exif.bin", Data(MetadataFixtures.exif(orientation: 1))), ("xmp.xml", Data(MetadataFixtures.xmp())),
            ("p3.icc", ColorFixtures.displayP3Profile()),
        ]
        for (name, data) in files { try data.write(to: ToolFixtures.url(name), options: .atomic) }
        let source = try ToolFixtures.sourcePNG(width: 15, height: 9, alpha: false)
        return try ToolFixtures.make(
            "tagged.avif", tool: "avifenc",
            [
                "-s", "10", "--exif", ToolFixtures.url("exif.bin").path, "--xmp", ToolFixtures.url("xmp.xml").path,
                "--icc", ToolFixtures.url("p3.icc").path, source.path,
            ])
    }

    @Test("the ICC profile, EXIF (as a TIFF structure) and XMP are handed over byte for byte")
    func decodedMetadata() throws {
        let image = try AVIFCoder().decode(try Self.tagged(), options: ImageDecodeOptions())
        #expect(image.metadata.colorProfile == .icc(ColorFixtures.displayP3Profile()))
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 1)))
        #expect(image.metadata.xmp == Data(MetadataFixtures.xmp()))
        #expect(image.metadata.warnings.isEmpty)
    }

    @Test("blocks over the size limits are left out with warnings naming the settings")
    func oversizedMetadata() throws {
        let options = ImageDecodeOptions(maxColorProfileBytes: 10, maxMetadataBytes: 10)
        let image = try AVIFCoder().decode(try Self.tagged(), options: options)
        #expect(image.metadata.colorProfile == nil && image.metadata.exif == nil && image.metadata.xmp == nil)
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored, .metadataIgnored, .metadataIgnored])
        #expect(image.metadata.warnings.allSatisfy { $0.message.hasPrefix("AVIF: ") && $0.message.contains("ImageDecodeOptions.max") })
    }

    @Test("an encode writes the profile, EXIF and XMP it was given")
    func encodedMetadata() throws {
        let decoded = try AVIFCoder().decode(try Self.tagged(), options: ImageDecodeOptions())
        let again = try AVIFCoder().decode(try AVIFCoder().encode(decoded, as: .avif, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(again.metadata.colorProfile == decoded.metadata.colorProfile)
        #expect(again.metadata.exif == decoded.metadata.exif)
        #expect(again.metadata.xmp == decoded.metadata.xmp)
    }
}
