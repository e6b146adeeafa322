import TestSupport
import Testing

@testable import PipelineCore

@Suite("RowStreamResampler", .dedicatedThreads)
struct RowStreamResamplerTests {
    static func noise(_ size: ImageSize, format: PixelFormat, seed: UInt32) throws -> PixelBuffer {
        var state = seed
        let bytes = (0..<size.width * size.height * format.bytesPerPixel).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return try PixelBuffer(width: size.width, height: size.height, format: format, bytes: bytes)
    }

    @Test(
        "Rows fed in fills of any size give the whole-image resample's bytes exactly",
        arguments: [PixelFormat.gray8, .rgb8])
    func matchesWholeImageResample(format: PixelFormat) throws {
        let cases: [(ImageSize, ImageSize)] = [
            (ImageSize(width: 301, height: 190), ImageSize(width: 160, height: 101)),
            (ImageSize(width: 53, height: 37), ImageSize(width: 30, height: 20)),
            (ImageSize(width: 53, height: 37), ImageSize(width: 53, height: 19)),
            (ImageSize(width: 40, height: 37), ImageSize(width: 70, height: 36)),
            (ImageSize(width: 5, height: 9), ImageSize(width: 3, height: 5)),
            (ImageSize(width: 1, height: 7), ImageSize(width: 1, height: 4)),
        ]
        for filter in ResamplingFilter.allCases {
            for (from, to) in cases {
                let source = try Self.noise(from, format: format, seed: UInt32(from.width * 31 + to.height))
                let expected = source.resampled(to: to, filter: filter)
                for fill in [1, 2, 3, 16] {
                    let stream = try #require(RowStreamResampler(source: from, format: format, target: to, filter: filter, rowsPerFill: fill))
                    source.bytes.withUnsafeBufferPointer { bytes in
                        while stream.rowsLeft > 0 {
                            stream.fill { rows, count in
                                // Fewer rows than offered, as a decoder may give.
                                let written = max(count - 1, 1)
                                let first = from.height - stream.rowsLeft
                                for k in 0..<written {
                                    rows[k]!.update(from: bytes.baseAddress! + (first + k) * source.bytesPerRow, count: source.bytesPerRow)
                                }
                                return written
                            }
                        }
                    }
                    #expect(stream.finish() == expected, "\(filter) \(from) -> \(to), \(fill) rows a fill")
                }
            }
        }
    }

    @Test("Alpha, a vertical enlargement or a reduction needing a box shrink is left to the whole-image path")
    func declinesWhatItDoesNotCover() {
        let size = ImageSize(width: 100, height: 100)
        #expect(RowStreamResampler(source: size, format: .rgba8, target: ImageSize(width: 60, height: 60), filter: .lanczos3, rowsPerFill: 1) == nil)
        #expect(RowStreamResampler(source: size, format: .rgb8, target: ImageSize(width: 60, height: 100), filter: .lanczos3, rowsPerFill: 1) == nil)
        #expect(RowStreamResampler(source: size, format: .rgb8, target: ImageSize(width: 60, height: 120), filter: .lanczos3, rowsPerFill: 1) == nil)
        #expect(RowStreamResampler(source: size, format: .rgb8, target: ImageSize(width: 20, height: 20), filter: .lanczos3, rowsPerFill: 1) == nil)
        #expect(RowStreamResampler(source: size, format: .gray8, target: ImageSize(width: 60, height: 60), filter: .lanczos3, rowsPerFill: 1) != nil)
    }
}
