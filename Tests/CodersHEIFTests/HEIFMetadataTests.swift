import CodersHEIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// The ICC profile and EXIF of a HEIC reach `ImageMetadata` as other coders hand them over.
@Suite(.enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
struct HEIFMetadataTests {
    /// heif-enc copies a PNG's iCCP and eXIf chunks into the HEIC.
    static func tagged() throws -> Data {
        let source = try ToolFixtures.sourcePNG(width: 15, height: 9, alpha: false)
        var png = ColorFixtures.png(try Data(contentsOf: source), embedding: ColorFixtures.displayP3Profile())
        png = MetadataFixtures.png(png, exif: MetadataFixtures.exif(orientation: 1), xmp: nil)
        let url = ToolFixtures.url("tagged-source.png")
        try png.write(to: url, options: .atomic)
        return try ToolFixtures.make("tagged.heic", tool: "heif-enc", ["-q", "60", url.path, "-o"])
    }

    @Test("the ICC profile and EXIF (as a TIFF structure) are handed over")
    func decodedMetadata() throws {
        let image = try HEIFCoder().decode(try Self.tagged(), options: ImageDecodeOptions())
        #expect(image.metadata.colorProfile == .icc(ColorFixtures.displayP3Profile()))
        #expect(image.metadata.exif == Data(MetadataFixtures.exif(orientation: 1)))
    }

    @Test("blocks over the size limits are left out with warnings naming the settings")
    func oversizedMetadata() throws {
        let image = try HEIFCoder().decode(try Self.tagged(), options: ImageDecodeOptions(maxColorProfileBytes: 10, maxMetadataBytes: 10))
        #expect(image.metadata.colorProfile == nil && image.metadata.exif == nil)
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored, .metadataIgnored])
    }
}
