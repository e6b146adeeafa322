import Foundation
import PAMCoder
import PipelineConformance
import PipelineCore
import Testing

/// The one test an outside author needs: the kit, on samples of every variant the coder reads.
@Suite("PAMCoder keeps ImagePipe's coder contracts")
struct PAMCoderConformanceTests {
    @Test("every PNM variant passes the conformance kit", arguments: PNMSamples.all())
    func conformance(_ sample: CoderSample) async {
        await CoderConformance.check(PAMCoder(), samples: [sample])
    }

    @Test("registered in a coders manager, it decodes PNM bytes and leaves other formats alone")
    func registration() throws {
        let coders = ImageCodersManager()
        coders.add(PAMCoder())
        let sample = PNMSamples.all()[1]
        #expect(try coders.decode(sample.data, options: ImageDecodeOptions()).pixelSize == sample.size)
        #expect(coders.coder(for: Data("GIF89a".utf8)) == nil)
    }

    @Test("registered in the format table, PNM is sniffed and found by its extensions and MIME types")
    func formatRegistration() {
        ImageFormatRegistry.shared.register(.pnm)
        #expect(ImageFormat.detect(in: PNMSamples.all()[1].data) == .pnm)
        #expect(ImageFormat.named("ppm") == .pnm)
        #expect(ImageFormat.named("image/x-portable-anymap") == .pnm)
        #expect(ImageFormat.detect(in: Data("GIF89a".utf8)) == .gif)
    }
}
