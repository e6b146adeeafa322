import CodersPNG
import Foundation
import PipelineCore
import Testing

@Suite("PNG encoding stops when its work is cancelled")
struct PNGEncoderCancellationTests {
    let image = Image(try! PixelBuffer(width: 256, height: 256, format: .rgba8, fill: .white), format: .png)

    @Test("a set flag stops the encode with cancelled; an unset one changes nothing")
    func cancelled() throws {
        let flag = DecodeCancellation()
        let plain = try PNGCoder().encode(image, as: .png, options: ImageEncodeOptions())
        let watched = try DecodeCancellation.$current.withValue(flag) { try PNGCoder().encode(image, as: .png, options: ImageEncodeOptions()) }
        #expect(watched == plain)
        flag.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try PNGCoder().encode(image, as: .png, options: ImageEncodeOptions()) }
        }
    }
}
