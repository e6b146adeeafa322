import CodersGIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// ICC profiles and XMP packets in GIF application extensions, on files written byte by byte.
@Suite("GIF ICC and XMP extensions", .dedicatedThreads)
struct GIFMetadataTests {
    let coder = GIFCoder()
    let profile = ColorFixtures.displayP3Profile()
    let xmp = MetadataFixtures.xmp()

    /// `ICCRGBG1012` with the profile in 255-byte sub-blocks.
    static func iccExtension(_ profile: Data) -> [UInt8] {
        var bytes: [UInt8] = [0x21, 0xFF, 11] + Array("ICCRGBG1012".utf8)
        let data = [UInt8](profile)
        for start in stride(from: 0, to: data.count, by: 255) {
            let part = data[start..<min(start + 255, data.count)]
            bytes += [UInt8(part.count)] + part
        }
        return bytes + [0]
    }

    /// `XMP DataXMP` as Adobe writes it: the packet raw, the 257-byte magic trailer, the terminator.
    static func xmpExtension(_ xmp: [UInt8]) -> [UInt8] {
        [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + xmp + [0x01] + (0...255).reversed().map { UInt8($0) } + [0]
    }

    func gif(profile: Data?, xmp: [UInt8]?, frames: Int = 1) -> Data {
        var writer = GIFIndexTests.Writer()
        if frames > 1 { writer.loop(0) }
        if let profile { writer.bytes += Self.iccExtension(profile) }
        if let xmp { writer.bytes += Self.xmpExtension(xmp) }
        for index in 0..<frames { writer.image(color: UInt8(index % 2), delay: frames > 1 ? 10 : nil) }
        return writer.data
    }

    @Test(
        "The ICC profile and XMP packet of a GIF's application extensions are on the decoded image, byte for byte",
        arguments: [1, 3])
    func readsExtensions(frames: Int) throws {
        let image = try coder.decode(gif(profile: profile, xmp: xmp, frames: frames), options: ImageDecodeOptions())
        #expect(image.frameCount == frames)
        #expect(image.metadata.colorProfile == .icc(profile))
        #expect(image.metadata.xmp == Data(xmp))
        #expect(image.metadata.warnings.isEmpty)
        #expect(image.firstFrame.color(x: 0, y: 0) == GIFIndexTests.red)
    }

    @Test("A profile or XMP over its limit is dropped with a warning naming the setting; the pixels still decode")
    func limits() throws {
        let options = ImageDecodeOptions(maxColorProfileBytes: 200, maxMetadataBytes: 100)
        let image = try coder.decode(gif(profile: profile, xmp: xmp), options: options)
        #expect(image.metadata.colorProfile == nil)
        #expect(image.metadata.xmp == nil)
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored, .metadataIgnored])
        #expect(image.metadata.warnings[0].message.contains("ImageDecodeOptions.maxColorProfileBytes"))
        #expect(image.metadata.warnings[1].message.contains("ImageDecodeOptions.maxMetadataBytes"))
        #expect(image.firstFrame.color(x: 0, y: 0) == GIFIndexTests.red)
    }

    @Test("An image that keeps its profile and XMP is written with them and reads back byte for byte", arguments: [1, 3])
    func writesExtensions(frames: Int) throws {
        let decoded = try coder.decode(gif(profile: profile, xmp: xmp, frames: frames), options: ImageDecodeOptions())
        let written = try coder.encode(decoded, as: .gif, options: ImageEncodeOptions())
        let again = try coder.decode(written, options: ImageDecodeOptions())
        #expect(again.frameCount == frames)
        #expect(again.metadata.colorProfile == .icc(profile))
        #expect(again.metadata.xmp == Data(xmp))
    }

    @Test("Without a profile or XMP on the image, the GIF written has no such extension")
    func writesNothingByDefault() throws {
        var image = try coder.decode(gif(profile: profile, xmp: xmp), options: ImageDecodeOptions())
        (image.metadata.colorProfile, image.metadata.xmp) = (.sRGB, nil)
        let written = [UInt8](try coder.encode(image, as: .gif, options: ImageEncodeOptions()))
        #expect(written.firstRange(of: Array("ICCRGBG1".utf8)) == nil)
        #expect(written.firstRange(of: Array("XMP Data".utf8)) == nil)
    }
}
