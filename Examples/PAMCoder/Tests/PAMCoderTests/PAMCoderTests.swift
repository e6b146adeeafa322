import Foundation
import PAMCoder
import PipelineCore
import Testing

/// What the kit cannot know about this format: its own rules and options.
@Suite("PAMCoder: Netpbm rules")
struct PAMCoderTests {
    let coder = PAMCoder()

    func error(_ text: String, pixels: Int = 0) -> ImagePipeError? {
        do {
            _ = try coder.decode(Data(text.utf8) + Data(repeating: 7, count: pixels), options: ImageDecodeOptions())
            return nil
        } catch { return error as? ImagePipeError }
    }

    @Test("16-bit samples are refused as unsupported, not misread")
    func sixteenBit() {
        guard case .unsupportedFormat(.pnm, _) = error("P5 2 2 65535\n", pixels: 8) else {
            Issue.record("16-bit was not refused")
            return
        }
    }

    @Test("headers that lie or overflow are bad data")
    func badHeaders() {
        for text in [
            "P5 0 2 255\n", "P6 2 2 0\n", "P5 9999999999 2 255\n", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n",
            "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\n", "P6 2 2 255\n",
        ] {
            guard case .badImageData = error(text, pixels: 3) else {
                Issue.record("accepted or misreported: \(text.debugDescription)")
                continue
            }
        }
    }

    @Test("gray and RGB encode as P5 and P6, alpha as P7; pnmAlwaysWritePAM asks for P7")
    func encodeVariants() throws {
        let gray = Image(PNMSamples.pixels(.gray8), format: .pnm)
        let rgba = Image(PNMSamples.pixels(.rgba8), format: .pnm)
        #expect(try coder.encode(gray, as: .pnm, options: ImageEncodeOptions()).starts(with: Data("P5\n".utf8)))
        #expect(try coder.encode(Image(PNMSamples.pixels(.rgb8)), as: .pnm, options: ImageEncodeOptions()).starts(with: Data("P6\n".utf8)))
        #expect(try coder.encode(rgba, as: .pnm, options: ImageEncodeOptions()).starts(with: Data("P7\n".utf8)))
        var options = ImageEncodeOptions()
        options.extras[.pnmAlwaysWritePAM] = true
        let pam = try coder.encode(gray, as: .pnm, options: options)
        #expect(pam.starts(with: Data("P7\n".utf8)))
        #expect(try coder.decode(pam, options: ImageDecodeOptions()).firstFrame == gray.firstFrame)
    }
}
