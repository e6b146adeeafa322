import CodersPNG
import Foundation
@testable import imagepipe
import PipelineCore
import Testing
import TestSupport

@Suite("imagepipe output bytes")
struct ImageOutputTests {
    @Test("A file whose EXIF was too big to read is re-encoded, not copied through with its GPS", arguments: [ImageMetadataHandling.strip, .keep])
    func oversizedExifIsNotCopiedThrough(handling: ImageMetadataHandling) throws {
        // Upright and untransformed, so only the metadata policy stands between input and output.
        let pixels = try PixelBuffer(width: 8, height: 4, format: .rgb8, fill: .black)
        let plain = try PNGCoder().encode(Image(pixels), as: .png, options: ImageEncodeOptions())
        let source = MetadataFixtures.png(plain, exif: MetadataFixtures.exif(orientation: 1), xmp: nil)
        let options = ImageDecodeOptions(metadataHandling: handling, maxMetadataBytes: 16)
        let image = try ImageCodersManager(coders: [PNGCoder()]).decodeImage(source, options: options)
        #expect(image.metadata.warnings.contains { $0.kind == .metadataIgnored })
        let written = try ImageOutput.encode(image, originalData: source, as: .png, options: ImageEncodeOptions(),
                                             coders: ImageCodersManager(coders: [PNGCoder()]))
        #expect(!MetadataFixtures.contains(written, MetadataFixtures.gpsMarker))
    }
}
