import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Image sequences: frames decoded lazily, each equal to avifdec's `--index` output, durations
/// from the track's timescale, looping forever.
@Suite(.enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
struct AVIFAnimationTests {
    let sample = AVIFFixtures.animated

    @Test("every frame equals avifdec's decode of that frame")
    func framesMatchAvifdec() throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(image.isAnimated && image.frameCount == 3)
        #expect(image.pixelSize == ImageSize(width: sample.width, height: sample.height))
        // Backwards too: a seek restarts at the key frame.
        for index in [0, 1, 2, 1, 0] {
            let reference = try AVIFFixtures.reference(sample, index: index)
            #expect(try image.frame(at: index).converted(to: .rgba8).bytes == reference.rgba, "frame \(index)")
        }
    }

    @Test("durations come from the timescale; 10 ms or less shows for 100 ms; loops forever")
    func timing() throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions())
        #expect(abs(image.duration(at: 0) - 0.040) < 1e-9)
        #expect(abs(image.duration(at: 1) - 0.120) < 1e-9)
        #expect(image.duration(at: 2) == 0.1)
        #expect(image.loopCount == 0)
    }

    @Test("first frame only gives a still image")
    func firstFrameOnly() throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(!image.isAnimated)
        #expect(image.firstFrame.converted(to: .rgba8).bytes == (try AVIFFixtures.reference(sample, index: 0)).rgba)
    }

    @Test("a thumbnail keeps every frame at the thumbnail's size")
    func thumbnail() throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 12, height: 12)))
        #expect(image.frameCount == 3)
        #expect(image.pixelSize.width == 12)
        #expect(try image.frame(at: 2).width == 12)
    }

    @Test("a cancelled request stops before the next frame")
    func cancellation() throws {
        let image = try AVIFCoder().decode(try sample.data(), options: ImageDecodeOptions())
        let flag = DecodeCancellation()
        flag.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try image.animation!.frame(at: 2, caching: false) }
        }
    }

    @Test("a spent time budget stops the decode with limitExceeded(.decodeTime)")
    func decodeTime() throws {
        let data = try sample.data()
        #expect {
            try AVIFCoder().decode(data, options: ImageDecodeOptions(maxDecodeTime: .zero))
        } throws: { error in
            guard case ImagePipeError.limitExceeded(let limit, _, _) = error else { return false }
            return limit == .decodeTime
        }
    }
}
