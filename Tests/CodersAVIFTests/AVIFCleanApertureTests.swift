import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersAVIF

/// `clap` crops the decoded image as libavif 1.x computes the rectangle; `irot` and
/// `imir` stay in `orientation`, applied after the crop as MIAF orders them.
struct AVIFCleanApertureTests {
    /// A `clap` box's fields: width, height, horizontal and vertical offset, each numerator and
    /// denominator, for an image of `image`.
    struct Row: Sendable, CustomTestStringConvertible {
        let image: (UInt32, UInt32)
        let fields: [Int64]
        let expected: AVIFCleanAperture?

        var testDescription: String { "\(image.0)x\(image.1) clap \(fields)" }

        var outcome: AVIFCleanAperture.Outcome {
            let f = fields.map { UInt32(truncatingIfNeeded: $0) }
            return AVIFCleanAperture.outcome(
                width: (f[0], f[1]), height: (f[2], f[3]), horizontalOffset: (f[4], f[5]), verticalOffset: (f[6], f[7]),
                imageWidth: image.0, imageHeight: image.1)
        }
    }

    /// libavif's own table (tests/gtest/avifclaptest.cc).
    static let valid: [Row] = [
        Row(image: (120, 160), fields: [96, 1, 132, 1, 0, 1, 0, 1], expected: AVIFCleanAperture(x: 12, y: 14, width: 96, height: 132)),
        Row(image: (120, 160), fields: [60, 1, 80, 1, -30, 1, -40, 1], expected: AVIFCleanAperture(x: 0, y: 0, width: 60, height: 80)),
        Row(image: (100, 100), fields: [99, 1, 99, 1, -1, 2, -1, 2], expected: AVIFCleanAperture(x: 0, y: 0, width: 99, height: 99)),
        Row(image: (100, 100), fields: [99, 1, 99, 1, 1, 2, 1, 2], expected: AVIFCleanAperture(x: 1, y: 1, width: 99, height: 99)),
    ]

    /// Denominators of 0 or below, widths or heights of 0 or below, widths or heights that are
    /// not whole, for a 120x160 image.
    static let invalidFields: [[Int64]] = [
        [96, 0, 132, 1, 0, 1, 0, 1], [96, -1, 132, 1, 0, 1, 0, 1], [96, 1, 132, 0, 0, 1, 0, 1], [96, 1, 132, -1, 0, 1, 0, 1],
        [96, 1, 132, 1, 0, 0, 0, 1], [96, 1, 132, 1, 0, -1, 0, 1], [96, 1, 132, 1, 0, 1, 0, 0], [96, 1, 132, 1, 0, 1, 0, -1],
        [-96, 1, 132, 1, 0, 1, 0, 1], [0, 1, 132, 1, 0, 1, 0, 1], [96, 1, -132, 1, 0, 1, 0, 1], [96, 1, 0, 1, 0, 1, 0, 1],
        [96, 5, 132, 1, 0, 1, 0, 1], [96, 1, 132, 5, 0, 1, 0, 1],
    ]

    static let invalid: [Row] =
        invalidFields.map { Row(image: (120, 160), fields: $0, expected: nil) } + [
            Row(image: (722, 1024), fields: [385, 1, 330, 1, 103, 1, -308, 1], expected: nil),
            Row(image: (1024, 722), fields: [330, 1, 385, 1, -308, 1, 103, 1], expected: nil),
            Row(image: (99, 99), fields: [99, 1, 99, 1, -1, 2, -1, 2], expected: nil),
            // Past the image's right edge; offsets that overflow 32 bits.
            Row(image: (120, 160), fields: [120, 1, 160, 1, 1, 1, 0, 1], expected: nil),
            Row(image: (120, 160), fields: [96, 1, 132, 1, Int64(Int32.max), 1, 0, 1], expected: nil),
            Row(image: (120, 160), fields: [96, 1, 132, 1, 1, Int64(Int32.max), 0, 1], expected: nil),
        ]

    @Test("valid clean apertures give libavif's rectangles", arguments: valid)
    func validRectangle(_ row: Row) {
        #expect(row.outcome == .crop(row.expected!))
    }

    @Test("invalid clean apertures give no rectangle", arguments: invalid)
    func invalidRectangle(_ row: Row) {
        guard case .invalid = row.outcome else {
            Issue.record("\(row.outcome)")
            return
        }
    }

    @Test("a still is cropped to its clap; irot and imir stay in the orientation")
    func stillCropped() throws {
        let image = try AVIFCorpusFile.decode("clap-irot-imir.avif")
        #expect(image.pixelSize == ImageSize(width: 27, height: 19))
        #expect(image.orientation == .leftMirrored && image.hasAlpha && image.metadata.warnings.isEmpty)
        let source = TestPNGWriter.pattern(width: 40, height: 30, alpha: true)
        let expected = AVIFCorpusFile.crop(source, width: 40, x: 5, y: 3, 27, 19)
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= 1)
    }

    @Test("upright, the crop is rotated and mirrored as libavif 1.x's avifdec writes it")
    func uprightMatchesAvifdec() throws {
        let upright = try AVIFCorpusFile.decode("clap-irot-imir.avif").applyingOrientation()
        #expect(upright.pixelSize == ImageSize(width: 19, height: 27))
        // A quarter turn anticlockwise, then top and bottom exchanged: the crop transposed.
        let source = TestPNGWriter.pattern(width: 40, height: 30, alpha: true)
        var expected: [UInt8] = []
        for y in 0..<27 {
            for x in 0..<19 {
                let at = ((x + 3) * 40 + y + 5) * 4
                expected += source[at..<at + 4]
            }
        }
        #expect(maxChannelDifference(upright.firstFrame.converted(to: .rgba8).bytes, expected) <= 1)
    }

    @Test("info, the decode estimate and thumbnails use the cropped size")
    func sizesAreCropped() throws {
        let data = try AVIFCorpusFile.data("clap-irot-imir.avif")
        let estimate = try #require(AVIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()))
        #expect(estimate.outputSize == ImageSize(width: 27, height: 19))
        let box = ImageSize(width: 9, height: 9)
        let thumbnail = try AVIFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.pixelSize == ImageSize(width: 27, height: 19).fitted(into: box))
    }

    @Test("every frame of a sequence is cropped to the track's clap")
    func sequenceCropped() throws {
        let image = try AVIFCorpusFile.decode("sequence-clap.avif")
        #expect(image.frameCount == 3 && image.pixelSize == ImageSize(width: 16, height: 10))
        for index in 0..<3 {
            let source = TestPNGWriter.pattern(width: 24, height: 16, alpha: false, seed: index + 1)
            let expected = AVIFCorpusFile.crop(source, width: 24, x: 4, y: 2, 16, 10)
            #expect(maxChannelDifference(try image.frame(at: index).converted(to: .rgba8).bytes, expected) <= 1, "frame \(index)")
        }
    }

    @Test("an invalid clap is ignored with a warning: the image is shown whole")
    func invalidClapIgnored() throws {
        // The clap's width numerator (27) made 41, wider than the 40-pixel image.
        var bytes = [UInt8](try AVIFCorpusFile.data("clap-irot-imir.avif"))
        let at = try #require(Data(bytes).range(of: Data("clap".utf8))).upperBound
        bytes[at + 3] = 41
        let image = try AVIFCoder().decode(Data(bytes), options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: 40, height: 30))
        #expect(image.metadata.warnings.map(\.kind) == [.corruptData])
        #expect(image.metadata.warnings.first?.message.contains("clap") == true)
    }
}
