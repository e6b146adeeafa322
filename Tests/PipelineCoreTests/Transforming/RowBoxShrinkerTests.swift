import Testing

@testable import PipelineCore

@Suite("RowBoxShrinker")
struct RowBoxShrinkerTests {
    static func noise(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        var state: UInt32 = 37
        let bytes = (0..<width * height * format.bytesPerPixel).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    @Test(
        "Rows shrunk as they arrive equal the whole image box-shrunk, boxes of few rows (16-bit sums) and of many (32-bit)",
        arguments: [PixelFormat.gray8, .rgb8], [(3, 7), (5, 257), (2, 300), (1, 1000)])
    func matchesWholeImageBox(format: PixelFormat, factors: (x: Int, y: Int)) throws {
        // 255s in every column of a box: the largest sums the narrow path must hold.
        var source = try Self.noise(width: 37, height: 1003, format: format)
        let white = try PixelBuffer(width: 37, height: 300, format: format, fill: ImageColor(red: 255, green: 255, blue: 255, alpha: 255))
        source = try PixelBuffer(width: 37, height: 1003, format: format, bytes: white.bytes + source.bytes.dropFirst(white.bytes.count))
        var shrinker = try RowBoxShrinker(source: source.size, format: format, factorX: factors.x, factorY: factors.y)
        let rowBytes = source.width * format.bytesPerPixel
        source.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<source.height { shrinker.add(row: bytes.baseAddress! + y * rowBytes) }
        }
        let shrunk = try shrinker.finish()
        #expect(shrunk == Resampler.boxShrink(source, factorX: factors.x, factorY: factors.y))
    }
}
