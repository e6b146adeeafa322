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

    @Test("a stoppable encode over a megapixel runs in a child process and writes the same file, RGB or RGBA, to a size or not")
    func childProcessSameFile() throws {
        let rgb = try Self.photo(width: 1201, height: 901)
        #expect(!WebPChildProcessEncode.isUsed(pixels: 1201 * 901))
        for buffer in [rgb, rgb.converted(to: .rgba8)] {
            for options in [ImageEncodeOptions(quality: 0.75), ImageEncodeOptions(quality: 0.75, maxFileSize: 40_000)] {
                let inProcess = try WebPEncoder.encode(buffer, options: options)
                let inChild = try DecodeCancellation.$current.withValue(DecodeCancellation()) {
                    #expect(WebPChildProcessEncode.isUsed(pixels: 1201 * 901))
                    return try WebPEncoder.encode(buffer, options: options)
                }
                #expect(inChild == inProcess)
            }
        }
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
