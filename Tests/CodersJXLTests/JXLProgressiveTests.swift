import CodersJXL
import Foundation
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

/// Incremental decoding, orientation, and the conformance kit.
@Suite(.enabled(if: JXLFixtures.toolsInstalled, JXLFixtures.missingTools), .dedicatedThreads)
struct JXLProgressiveTests {
    @Test("a progressive load shows partial images, then exactly the one-shot decode")
    func incremental() throws {
        let sample = JXLFixtures.progressive
        let data = try sample.data()
        let decoder = JXLCoder().makeIncrementalDecoder(options: ImageDecodeOptions())
        decoder.update(data.prefix(10), isComplete: false)
        #expect(try decoder.currentImage() == nil)
        var partials = 0
        // libjxl 0.7 draws a partial frame only once the frame's DC and most groups are in: for
        // cjxl's files, the last tenth or so (djxl's --allow_partial_files fails before that too).
        for fraction in [0.3, 0.6, 0.9, 0.95] {
            decoder.update(data.prefix(Int(Double(data.count) * fraction)), isComplete: false)
            if let partial = try decoder.currentImage() {
                #expect(partial.metadata.isIncremental)
                #expect(partial.pixelSize == sample.size)
                partials += 1
            }
        }
        #expect(partials >= 1)
        decoder.update(data, isComplete: true)
        let final = try #require(try decoder.currentImage())
        #expect(!final.metadata.isIncremental)
        #expect(final.firstFrame.bytes == (try JXLCoder().decode(data, options: ImageDecodeOptions())).firstFrame.bytes)
    }

    @Test("the codestream's orientation is carried on the image, not applied; upright it is djxl's")
    func orientation() throws {
        let sample = JXLFixtures.oriented
        let image = try JXLCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.pixelSize == ImageSize(width: 1200, height: 1800))
        let upright = try image.applyingOrientation()
        let reference = try JXLFixtures.reference(sample)
        #expect(upright.pixelSize == ImageSize(width: reference.width, height: reference.height))
        #expect(maxChannelDifference(upright.firstFrame.converted(to: .rgba8).bytes, reference.rgba) <= 1)
        // The recompressed JPEG's EXIF came along in the container.
        #expect(image.metadata.exif != nil || image.metadata.hasUnreadMetadata)
    }

    static let kitSamples = [JXLFixtures.lossy, JXLFixtures.lossless, JXLFixtures.gray, JXLFixtures.animated]

    @Test("JXLCoder keeps the kit's coder contracts", arguments: kitSamples)
    func conformance(_ fixture: JXLFixtures.Sample) async throws {
        let reference = try JXLFixtures.reference(fixture)
        let sample = CoderSample(
            name: fixture.name, data: try fixture.data(), format: .jxl, size: fixture.size,
            frameCount: fixture.frames, loopCount: fixture.frames > 1 ? 0 : nil,
            reference: try PixelBuffer(width: reference.width, height: reference.height, format: .rgba8, bytes: reference.rgba), tolerance: 1)
        // No `colorProfile` round trip: libjxl stores a profile that an enumerated colour space
        // describes (Display P3 is one) as that description, and gives back its own ICC for it,
        // not the bytes written (`JXLEncoderTests` checks it comes back as a profile).
        var options = CoderConformance.Options()
        options.writesMetadata = true
        await CoderConformance.check(JXLCoder(), samples: [sample], options: options)
    }
}
