import CPNGShim
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

/// The writer's stoppable compression of large images, driven through the C shim with a stop
/// query that answers yes after a set number of questions.
@Suite("PNG compression of large images stops between steps")
struct PNGCompressionStopTests {
    /// Questions asked, and the one answered yes (0: never).
    struct Questions {
        var asked: Int32 = 0
        var stopAt: Int32 = 0
    }

    static let query: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        let questions = context!.assumingMemoryBound(to: Questions.self)
        questions.pointee.asked += 1
        return questions.pointee.stopAt != 0 && questions.pointee.asked >= questions.pointee.stopAt ? 1 : 0
    }

    /// 1536×1024 RGBA of noise-like bytes: 6 MiB filtered, past the size compressed in one call.
    static let (width, height) = (1536, 1024)
    static let pixels: [UInt8] = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    static func encode(stopAt: Int32) -> (status: Int32, asked: Int32, file: Data?) {
        var questions = Questions(stopAt: stopAt)
        var output = ipng_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { pixels in
            withUnsafeMutablePointer(to: &questions) { questions in
                ipng_encode(pixels.baseAddress, UInt32(width), UInt32(height), 4, 6, &output, query, questions, &message, message.count)
            }
        }
        defer { ipng_buffer_free(&output) }
        return (status, questions.asked, output.bytes.map { Data(bytes: $0, count: output.size) })
    }

    @Test("asked to stop during compression, the writer stops there; never asked, the file decodes to the same pixels")
    func stopsDuringCompression() throws {
        let whole = Self.encode(stopAt: 0)
        #expect(whole.status == 1)
        // Filtering asks every 64 rows and once before compressing; compression once a MiB.
        let filteringQuestions = Int32(Self.height / 64 + 1)
        #expect(whole.asked > filteringQuestions + 4, "compression asked \(whole.asked - filteringQuestions) times")
        let stopped = Self.encode(stopAt: filteringQuestions + 2)
        #expect(stopped.status == -1)
        #expect(stopped.asked == filteringQuestions + 2)
        let file = try #require(whole.file)
        let decoded = try PNGCoder().decode(file, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == ImageSize(width: Self.width, height: Self.height))
        #expect(try decoded.frame(at: 0).bytes == Self.pixels)
    }
}
