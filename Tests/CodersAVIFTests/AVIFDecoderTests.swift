import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Stills made by avifenc decode to avifdec's pixels (8 bits, RGBA), at 8, 10 and 12 bits, every
/// subsampling, with alpha, monochrome, and odd sizes.
@Suite(.enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
struct AVIFDecoderTests {
    /// libavif's YUV to RGB conversion is what avifdec uses too, so pixels agree to the bit but
    /// for rounding where a library path differs.
    static let tolerance = 1

    @Test("stills decode to avifdec's pixels", arguments: AVIFFixtures.stills)
    func stillMatchesAvifdec(_ sample: AVIFFixtures.Sample) throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(image.format == .avif)
        #expect(image.pixelSize == ImageSize(width: sample.width, height: sample.height))
        #expect(image.hasAlpha == sample.alpha)
        #expect(!image.isAnimated && image.metadata.warnings.isEmpty)
        let reference = try AVIFFixtures.reference(sample)
        let ours = image.firstFrame.converted(to: .rgba8)
        #expect(maxChannelDifference(ours.bytes, reference.rgba) <= Self.tolerance)
    }

    @Test("a monochrome (4:0:0) file stays gray")
    func monochromeIsGray() throws {
        let image = try AVIFCoder().decode(try AVIFFixtures.gray.data(), options: ImageDecodeOptions())
        #expect(image.pixelFormat == .gray8)
    }

    @Test("a lossless file gives back its source's pixels exactly")
    func losslessIsExact() throws {
        let sample = AVIFFixtures.lossless
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions())
        let source = TestPNGWriter.pattern(width: sample.width, height: sample.height, alpha: true)
        #expect(image.firstFrame.converted(to: .rgba8).bytes == source)
    }

    @Test("a thumbnail is decoded at the box's size, aspect kept")
    func thumbnailFitsTheBox() throws {
        let box = ImageSize(width: 10, height: 10)
        let sample = AVIFFixtures.rgb8
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions(thumbnailPixelSize: box))
        let full = ImageSize(width: sample.width, height: sample.height)
        #expect(image.pixelSize == full.fitted(into: box))
        #expect(image.pixelSize.width == 10)
        #expect(image.isThumbnail)
    }

    @Test("canDecode takes avif and avis brands, not HEIC or other formats")
    func sniffing() throws {
        let coder = AVIFCoder()
        #expect(coder.canDecode(try AVIFFixtures.rgb8.data()))
        #expect(coder.canDecode(try AVIFFixtures.animated.data()))
        let heic = Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        #expect(!coder.canDecode(heic))
        let genericAVIF = Data([0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1avif".utf8))
        #expect(coder.canDecode(genericAVIF))
        #expect(!coder.canDecode(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)))
        // The format table, with AVIFCoder's entry registered, sniffs the same way.
        let table = ImageFormatRegistry()
        #expect(table.detect(in: genericAVIF) == .heif)
        table.register(AVIFCoder.format)
        #expect(table.detect(in: genericAVIF) == .avif && table.detect(in: heic) == .heic)
    }

    @Test("the decode estimate covers the output and libavif's planes")
    func estimate() throws {
        let sample = AVIFFixtures.alpha10
        let estimate = try #require(AVIFCoder().decodeEstimate(for: try sample.data(), options: ImageDecodeOptions()))
        #expect(estimate.outputSize == ImageSize(width: sample.width, height: sample.height))
        #expect(estimate.bytesPerPixel == 4)
        // 10-bit 4:2:0 with alpha: two bytes a sample, planes held twice.
        #expect(estimate.workingBytes >= sample.width * sample.height * 2 * 2 * 2)
    }
}

func maxChannelDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return .max }
    return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}
