import CodersJPEG
import Foundation
import PipelineCore
import Testing

@Suite("JPEG encoding stops when its work is cancelled")
struct JPEGEncoderCancellationTests {
    let image = Image(try! PixelBuffer(width: 256, height: 256, format: .rgb8, fill: .white), format: .jpeg)

    @Test("a set flag stops the encode with cancelled; an unset one changes nothing")
    func cancelled() throws {
        let flag = DecodeCancellation()
        let plain = try JPEGCoder().encode(image, as: .jpeg, options: ImageEncodeOptions())
        let watched = try DecodeCancellation.$current.withValue(flag) { try JPEGCoder().encode(image, as: .jpeg, options: ImageEncodeOptions()) }
        #expect(watched == plain)
        flag.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try JPEGCoder().encode(image, as: .jpeg, options: ImageEncodeOptions()) }
        }
    }
}
