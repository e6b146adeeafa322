import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersWebP

@Suite("WebP encoding stops when its work is cancelled", .dedicatedThreads)
struct WebPEncoderCancellationTests {
    /// Noise-like RGB of odd size, so slabs end on odd rows and half chroma columns.
    static func photo(width: Int, height: Int) throws -> PixelBuffer {
        var state: UInt32 = 12345
        let bytes = (0..<width * height * 3).map { index -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: (index / 3 % width) + Int(state >> 28))
        }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }

    @Test("a stoppable encode imports in slabs and writes the same file as one whole import", arguments: [2, 6, 256])
    func slabsMatchAWholeImport(slabRows: Int) throws {
        let buffer = try Self.photo(width: 301, height: 203)
        let whole = try WebPEncoder.encode(buffer, options: ImageEncodeOptions(quality: 0.75))
        let slabs = try DecodeCancellation.$current.withValue(DecodeCancellation()) {
            try WebPEncoder.encode(buffer, options: ImageEncodeOptions(quality: 0.75), slabRows: slabRows)
        }
        #expect(slabs == whole)
    }

    @Test("a set flag stops the encode with cancelled before libwebp runs")
    func cancelled() throws {
        let flag = DecodeCancellation()
        flag.cancel()
        let buffer = try Self.photo(width: 64, height: 64)
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try WebPEncoder.encode(buffer, options: ImageEncodeOptions()) }
        }
    }
}
