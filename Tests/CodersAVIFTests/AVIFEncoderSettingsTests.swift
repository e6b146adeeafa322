import CAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersAVIF

/// What libaom is told (speed, quantizer) and what the default speed gives on a photo.
@Suite(.dedicatedThreads)
struct AVIFEncoderSettingsTests {
    @Test("quality maps to one quantizer for colour and alpha as libavif 1.x and libheif map it; lossless is 0")
    func quantizer() {
        for (quality, quantizer) in [(0.63, 23), (0.6, 25), (0.9, 6), (0, 63), (1, 0)] {
            #expect(AVIFEncoderSettings(ImageEncodeOptions(quality: quality)).quantizer == Int32(quantizer), "quality \(quality)")
        }
        let lossless = AVIFEncoderSettings(ImageEncodeOptions(quality: 0.5, lossless: true))
        #expect(lossless.lossless && lossless.quantizer == 0)
    }

    @Test("the speed is libavif's 5 unless the extras say otherwise, within 0…10")
    func speed() {
        #expect(AVIFEncoderSettings(ImageEncodeOptions()).speed == 5 && AVIFCoder.defaultSpeed == 5)
        for (asked, used) in [(8, 8), (-4, 0), (42, 10)] {
            var options = ImageEncodeOptions()
            options.extras[.avifSpeed] = asked
            #expect(AVIFEncoderSettings(options).speed == Int32(used))
        }
    }

    @Test("the encoder is given the settings")
    func applied() throws {
        try AVIFLibrary.open()
        let encoder = try #require(ip_avifEncoderCreate())
        defer { ip_avifEncoderDestroy(encoder) }
        var options = ImageEncodeOptions(quality: 0.6)
        options.extras[.avifSpeed] = 7
        AVIFEncoderSettings(options).apply(to: encoder)
        let applied = encoder.pointee
        #expect(applied.speed == 7 && applied.maxThreads == 1)
        #expect([applied.minQuantizer, applied.maxQuantizer, applied.minQuantizerAlpha, applied.maxQuantizerAlpha] == [25, 25, 25, 25])
    }

    @Test("at the default speed a photo takes fewer bytes than at speed 8, decodes to its size and stays close")
    func defaultSpeedOnAPhoto() throws {
        let photo = AVIFGridEncoderTests.photo(width: 320, height: 240)
        var fast = ImageEncodeOptions(quality: 0.6)
        fast.extras[.avifSpeed] = 8
        let ours = try AVIFCoder().encode(Image(photo), as: .avif, options: ImageEncodeOptions(quality: 0.6))
        let before = try AVIFCoder().encode(Image(photo), as: .avif, options: fast)
        #expect(ours.count < before.count)
        let decoded = try AVIFCoder().decode(ours, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == photo.size && decoded.pixelFormat == .rgb8)
        let fastDecoded = try AVIFCoder().decode(before, options: ImageDecodeOptions())
        let psnr = AVIFGridEncoderTests.psnr(decoded.firstFrame.bytes, photo.bytes)
        #expect(psnr > 30 && psnr > AVIFGridEncoderTests.psnr(fastDecoded.firstFrame.bytes, photo.bytes) - 1)
    }
}
