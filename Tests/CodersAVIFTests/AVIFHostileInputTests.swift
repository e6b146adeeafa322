import CAVIFShim
import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Truncated, corrupt and oversized files fail with typed errors; limits stop a file before any
/// plane is allocated, inside libavif's parser where it has the limit.
@Suite(.enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
struct AVIFHostileInputTests {
    /// `data` with its first `ispe` box claiming `width` x `height`.
    static func claiming(_ width: Int, _ height: Int, in data: Data) throws -> Data {
        var bytes = [UInt8](data)
        let tag = Array("ispe".utf8)
        let at = try #require((0..<(bytes.count - 16)).first { Array(bytes[$0..<$0 + 4]) == tag })
        bytes.replaceSubrange(at + 8..<at + 16, with: HostileImages.be32(width) + HostileImages.be32(height))
        return Data(bytes)
    }

    static func limit(of error: any Error) -> ImagePipeError.Limit? {
        guard case ImagePipeError.limitExceeded(let limit, _, _) = error else { return nil }
        return limit
    }

    @Test("every truncation of a still and of a sequence fails with badImageData", arguments: [AVIFFixtures.alpha10, AVIFFixtures.animated])
    func truncated(_ sample: AVIFFixtures.Sample) throws {
        let data = try sample.data()
        for length in stride(from: 0, to: data.count, by: max(data.count / 40, 1)) {
            do {
                let image = try AVIFCoder().decode(data.prefix(length), options: ImageDecodeOptions())
                for index in 0..<image.frameCount { _ = try image.frame(at: index) }
                Issue.record("\(length) of \(data.count) bytes decoded")
            } catch {
                guard case ImagePipeError.badImageData = error else {
                    Issue.record("\(length) of \(data.count) bytes: \(error)")
                    continue
                }
            }
        }
    }

    @Test("corrupt copies decode or fail with an ImagePipeError, never crash")
    func corrupt() throws {
        let data = try AVIFFixtures.animated.data()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<60 {
            var bytes = [UInt8](data)
            for _ in 0..<4 { bytes[Int.random(in: 12..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            do {
                let image = try AVIFCoder().decode(Data(bytes), options: ImageDecodeOptions())
                for index in 0..<image.frameCount { _ = try image.frame(at: index) }
            } catch {
                #expect(error is ImagePipeError)
            }
        }
    }

    @Test("a header claiming more pixels than maxPixels is refused with the claimed count")
    func pixelBomb() throws {
        let bomb = try Self.claiming(12_000, 12_000, in: try AVIFFixtures.rgb8.data())
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 144_000_000, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try AVIFCoder().decode(bomb, options: ImageDecodeOptions())
        }
        #expect(AVIFCoder().decodeEstimate(for: bomb, options: ImageDecodeOptions()) == nil)
    }

    @Test("a header past libavif's own size limit is refused as a pixels limit")
    func hugeBomb() throws {
        let bomb = try Self.claiming(60_000, 60_000, in: try AVIFFixtures.rgb8.data())
        #expect { try AVIFCoder().decode(bomb, options: ImageDecodeOptions()) } throws: { Self.limit(of: $0) == .pixels }
    }

    @Test("a sequence over maxFrames is refused by libavif's parser, naming our setting")
    func frameLimit() throws {
        let data = try AVIFFixtures.animated.data()
        #expect(throws: ImagePipeError.limitExceeded(.frames, value: 3, maximum: 2)) {
            try AVIFCoder().decode(data, options: ImageDecodeOptions(maxFrames: 2))
        }
    }

    @Test("a sequence over maxAnimationPixels is refused before a frame is decoded")
    func animationPixels() throws {
        let data = try AVIFFixtures.animated.data()
        #expect { try AVIFCoder().decode(data, options: ImageDecodeOptions(maxAnimationPixels: 23 * 13 * 2)) } throws: {
            Self.limit(of: $0) == .animationPixels
        }
        // The first frame alone is one frame: maxPixels bounds it, not this.
        #expect(try AVIFCoder().decode(data, options: ImageDecodeOptions(firstFrameOnly: true, maxAnimationPixels: 23 * 13 * 2)).frameCount == 1)
    }

    @Test("a file whose planes exceed maxDecoderMemory is refused before decoding")
    func decoderMemory() throws {
        let data = try AVIFFixtures.rgb12.data()
        #expect { try AVIFCoder().decode(data, options: ImageDecodeOptions(maxDecoderMemory: 1000)) } throws: {
            Self.limit(of: $0) == .decoderMemory
        }
    }

    @Test("bytes of another format are refused as that format")
    func foreign() {
        #expect(throws: ImagePipeError.unsupportedFormat(.webp, reason: "AVIFCoder decodes AVIF only")) {
            try AVIFCoder().decode(Data("RIFF\0\0\0\0WEBPVP8 ".utf8), options: ImageDecodeOptions())
        }
    }
}

/// dav1d describes corrupt AV1 data on stderr unless its logger is off; libavif gets settings
/// with logging off in any program linking CodersAVIF.
struct AVIFQuietDecoderTests {
    @Test("dav1d's default settings log nowhere")
    func dav1dIsSilenced() {
        #expect(imagepipe_dav1d_logging_silenced() == 1)
    }
}
