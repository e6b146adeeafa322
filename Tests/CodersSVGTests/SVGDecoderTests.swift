import CodersSVG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Documents draw to rsvg-convert's pixels, at their own size and at a thumbnail's.
@Suite(.enabled(if: SVGFixtures.toolInstalled, SVGFixtures.missingTool), .dedicatedThreads)
struct SVGDecoderTests {
    /// The same librsvg and cairo draw both; only the unpremultiplying rounding may differ.
    static let tolerance = 1

    @Test("documents draw to rsvg-convert's pixels", arguments: SVGFixtures.samples)
    func matchesRsvgConvert(_ sample: SVGFixtures.Sample) throws {
        let image = try SVGCoder().decode(sample.data, options: ImageDecodeOptions())
        #expect(image.format == .svg)
        #expect(image.pixelSize == sample.size)
        #expect(image.pixelFormat == .rgba8 && image.metadata.warnings.isEmpty)
        let reference = try SVGFixtures.reference(sample)
        #expect(maxChannelDifference(image.firstFrame.bytes, reference.rgba) <= Self.tolerance)
    }

    @Test("a thumbnail is drawn at the thumbnail's size, as rsvg-convert draws it at that size", arguments: SVGFixtures.samples)
    func thumbnailIsDrawnAtItsSize(_ sample: SVGFixtures.Sample) throws {
        let box = ImageSize(width: 20, height: 20)
        let image = try SVGCoder().decode(sample.data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        let size = sample.size.fitted(into: box)
        #expect(image.pixelSize == size)
        #expect(image.isThumbnail)
        // Drawn, not shrunk: the same pixels rsvg-convert draws at that size.
        let reference = try SVGFixtures.reference(sample, size: size)
        #expect(maxChannelDifference(image.firstFrame.bytes, reference.rgba) <= Self.tolerance)
    }

    @Test("a huge canvas draws at thumbnail size without allocating the canvas")
    func hugeCanvasThumbnail() throws {
        let document = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="100000" height="50000" fill="red"/></svg>"#
        let image = try SVGCoder().decode(Data(document.utf8), options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 64, height: 64)))
        #expect(image.pixelSize == ImageSize(width: 64, height: 64))
        #expect(Array(image.firstFrame.bytes.prefix(4)) == [255, 0, 0, 255])
        #expect(Array(image.firstFrame.bytes.suffix(4)) == [0, 0, 0, 0])
    }

    @Test("canDecode takes documents starting like an SVG, from their first bytes, nothing else")
    func sniffing() {
        #expect(SVGCoder().canDecode(SVGFixtures.shapes.data))
        #expect(SVGCoder().canDecode(Data("\u{FEFF}\n  <?xml version=\"1.0\"?>".utf8)))
        #expect(SVGCoder().canDecode(Data("<!DOCTYPE SVG PUBLIC".utf8)))
        #expect(!SVGCoder().canDecode(Data("<html></html>".utf8)))
        #expect(!SVGCoder().canDecode(Data("<!DOCTYPE html>".utf8)))
        #expect(!SVGCoder().canDecode(Data([0x89, 0x50, 0x4E, 0x47])))
        #expect(SVGCoder().canDecode(format: .svg) && !SVGCoder().canEncode(to: .svg))
    }

    @Test("a document that does not parse is refused with librsvg's reason")
    func malformed() {
        #expect {
            try SVGCoder().decode(Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="1"</svg>"#.utf8), options: ImageDecodeOptions())
        } throws: { error in
            guard case .badImageData(let reason) = error as? ImagePipeError else { return false }
            return reason.hasPrefix("SVG: ")
        }
    }

    @Test("a document with neither size nor viewBox is refused, saying so")
    func noSize() {
        #expect {
            try SVGCoder().decode(Data(#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>"#.utf8), options: ImageDecodeOptions())
        } throws: { error in
            guard case .badImageData(let reason) = error as? ImagePipeError else { return false }
            return reason.contains("no width and height and no viewBox")
        }
    }
}

func maxChannelDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return .max }
    return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}
