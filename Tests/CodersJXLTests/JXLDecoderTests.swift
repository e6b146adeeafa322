import CodersJXL
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Stills made by cjxl decode to djxl's pixels: lossy and lossless, with alpha, gray.
@Suite(.enabled(if: JXLFixtures.toolsInstalled, JXLFixtures.missingTools), .dedicatedThreads)
struct JXLDecoderTests {
    /// The same libjxl decodes both; djxl writes its PNG through its own 8-bit conversion.
    static let tolerance = 1

    @Test("stills decode to djxl's pixels", arguments: JXLFixtures.stills)
    func stillMatchesDjxl(_ sample: JXLFixtures.Sample) throws {
        let image = try JXLCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(image.format == .jxl)
        #expect(image.pixelSize == sample.size)
        #expect(image.hasAlpha == sample.alpha)
        #expect(!image.isAnimated && image.metadata.warnings.isEmpty)
        let reference = try JXLFixtures.reference(sample)
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, reference.rgba) <= Self.tolerance)
    }

    @Test("a gray file stays gray; an opaque one has no alpha")
    func pixelFormats() throws {
        #expect(try JXLCoder().decode(try JXLFixtures.gray.data(), options: ImageDecodeOptions()).pixelFormat == .gray8)
        #expect(try JXLCoder().decode(try JXLFixtures.losslessRGB.data(), options: ImageDecodeOptions()).pixelFormat == .rgb8)
        #expect(try JXLCoder().decode(try JXLFixtures.lossless.data(), options: ImageDecodeOptions()).pixelFormat == .rgba8)
    }

    @Test("a lossless file gives back its source's pixels exactly")
    func losslessIsExact() throws {
        let sample = JXLFixtures.lossless
        let image = try JXLCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(image.firstFrame.bytes == TestPNGWriter.pattern(width: sample.width, height: sample.height, alpha: true))
    }

    @Test("a thumbnail is decoded at the box's size, aspect kept")
    func thumbnailFitsTheBox() throws {
        let box = ImageSize(width: 10, height: 10)
        let sample = JXLFixtures.lossy
        let image = try JXLCoder().decode(try sample.data(), options: ImageDecodeOptions(thumbnailPixelSize: box))
        #expect(image.pixelSize == sample.size.fitted(into: box))
        #expect(image.isThumbnail)
    }

    @Test("canDecode takes a bare codestream and the container, nothing else")
    func sniffing() throws {
        let coder = JXLCoder()
        #expect(coder.canDecode(Data([0xFF, 0x0A, 0, 0])))
        #expect(coder.canDecode(Data([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])))
        #expect(!coder.canDecode(Data([0xFF, 0xD8, 0xFF])))
        #expect(ImageFormat.detect(in: Data([0xFF, 0x0A, 0, 0])) == .jxl)
    }

    @Test("a file cut short shows what was decoded, with a truncated warning")
    func truncatedFileWarns() throws {
        let data = try JXLFixtures.progressive.data()
        let image = try JXLCoder().decode(data.prefix(data.count * 19 / 20), options: ImageDecodeOptions())
        #expect(image.pixelSize == JXLFixtures.progressive.size)
        #expect(image.metadata.warnings.map(\.kind) == [.truncated])
    }

    @Test("bytes that are not a JPEG XL are refused as such")
    func garbage() throws {
        #expect(throws: ImagePipeError.self) { try JXLCoder().decode(Data([0xFF, 0x0A, 1, 2, 3]), options: ImageDecodeOptions()) }
        #expect(throws: ImagePipeError.self) { try JXLCoder().decode(Data("hello".utf8), options: ImageDecodeOptions()) }
    }
}

func maxChannelDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return .max }
    return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}
