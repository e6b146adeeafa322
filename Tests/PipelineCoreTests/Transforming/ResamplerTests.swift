import Testing
@testable import PipelineCore
import TestSupport

@Suite("Resampler", .dedicatedThreads)
struct ResamplerTests {
    static func gradient(width: Int, height: Int, format: PixelFormat = .rgb8) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(x * 255 / max(width - 1, 1))
                switch format {
                case .gray8: bytes += [v]
                case .grayAlpha8: bytes += [v, 255]
                case .rgb8: bytes += [v, UInt8(y * 255 / max(height - 1, 1)), 128]
                case .rgba8: bytes += [v, UInt8(y * 255 / max(height - 1, 1)), 128, 255]
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    @Test("A solid colour stays exactly that colour at any size, in every filter and format",
          arguments: ResamplingFilter.allCases, PixelFormat.allCases)
    func solidColour(filter: ResamplingFilter, format: PixelFormat) throws {
        let colour = ImageColor(red: 200, green: 100, blue: 50, alpha: 255)
        let source = try PixelBuffer(width: 97, height: 61, format: format, fill: colour)
        for size in [ImageSize(width: 10, height: 7), ImageSize(width: 300, height: 200), ImageSize(width: 1, height: 1), ImageSize(width: 97, height: 5)] {
            let out = source.resampled(to: size, filter: filter)
            #expect(out.size == size)
            #expect(out.format == format)
            let expected = PixelBuffer.encode(colour, as: format)
            let bpp = format.bytesPerPixel
            for i in stride(from: 0, to: out.bytes.count, by: bpp) {
                #expect(Array(out.bytes[i..<i + bpp]) == expected)
                if Array(out.bytes[i..<i + bpp]) != expected { return }
            }
        }
    }

    @Test("Gray, RGB and opaque RGBA give the same colours: every channel count's loop computes one filter",
          arguments: ResamplingFilter.allCases)
    func channelLayoutsAgree(filter: ResamplingFilter) throws {
        // Noise-like content (no two neighbours alike), sizes that leave odd tails, both directions:
        // the 3- and 4-byte pixels take vector loops with special last rows and pixels, gray the
        // scalar loop, so any slip at a row's end or in a lane shows up as a mismatch.
        var state: UInt32 = 12345
        func next() -> UInt8 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let width = 53, height = 37
        let gray = (0..<width * height).map { _ in next() }
        let rgb = gray.flatMap { [$0, $0, $0] }
        let rgba = gray.flatMap { [$0, $0, $0, 255] as [UInt8] }
        let sources = [
            try PixelBuffer(width: width, height: height, format: .gray8, bytes: gray),
            try PixelBuffer(width: width, height: height, format: .rgb8, bytes: rgb),
            try PixelBuffer(width: width, height: height, format: .rgba8, bytes: rgba),
        ]
        for size in [ImageSize(width: 17, height: 11), ImageSize(width: 26, height: 37), ImageSize(width: 53, height: 9),
                     ImageSize(width: 111, height: 80), ImageSize(width: 1, height: 1)] {
            let outs = sources.map { $0.resampled(to: size, filter: filter) }
            let reference = outs[0].bytes
            #expect(stride(from: 0, to: outs[1].bytes.count, by: 3).map { outs[1].bytes[$0] } == reference, "RGB at \(size)")
            #expect(outs[1].bytes == reference.flatMap { [$0, $0, $0] }, "RGB channels at \(size)")
            #expect(outs[2].bytes == reference.flatMap { [$0, $0, $0, 255] as [UInt8] }, "RGBA at \(size)")
        }
    }

    @Test("A horizontal gradient stays ordered left to right when shrunk 8x")
    func gradientOrder() throws {
        let out = try Self.gradient(width: 800, height: 40).resampled(to: ImageSize(width: 100, height: 5))
        var last: UInt8 = 0
        for x in 0..<100 {
            let red = out.color(x: x, y: 2).red
            #expect(red >= last)
            last = red
        }
        #expect(out.color(x: 0, y: 0).red < 8)
        #expect(out.color(x: 99, y: 0).red > 247)
    }

    @Test("A 1-pixel checkerboard shrinks to its average gray, not to aliasing stripes")
    func checkerboardAverages() throws {
        var bytes: [UInt8] = []
        for y in 0..<240 { for x in 0..<240 { bytes.append((x + y) % 2 == 0 ? 255 : 0) } }
        let board = try PixelBuffer(width: 240, height: 240, format: .gray8, bytes: bytes)
        for size in [ImageSize(width: 24, height: 24), ImageSize(width: 100, height: 100), ImageSize(width: 7, height: 13)] {
            let out = board.resampled(to: size)
            for value in out.bytes { #expect((120...135).contains(value), "\(size)") }
        }
    }

    @Test("Transparent pixels' colour does not bleed into an opaque neighbour")
    func premultipliedAlpha() throws {
        // Left half transparent *red*, right half opaque blue; the edge must stay blue, not purple.
        var bytes: [UInt8] = []
        for _ in 0..<8 { for x in 0..<16 { bytes += x < 8 ? [255, 0, 0, 0] : [0, 0, 255, 255] } }
        let out = try PixelBuffer(width: 16, height: 8, format: .rgba8, bytes: bytes).resampled(to: ImageSize(width: 8, height: 4))
        for y in 0..<4 {
            for x in 0..<8 {
                let c = out.color(x: x, y: y)
                if c.alpha > 16 { #expect(c.red < 10, "red bled into (\(x), \(y)): \(c)") }
            }
        }
        #expect(out.color(x: 7, y: 0) == ImageColor(red: 0, green: 0, blue: 255))
    }

    @Test("Upscaling keeps the image's corners and grows to the exact size")
    func upscale() throws {
        let source = try Self.gradient(width: 4, height: 4, format: .rgba8)
        let out = source.resampled(to: ImageSize(width: 33, height: 17), filter: .catmullRom)
        #expect(out.size == ImageSize(width: 33, height: 17))
        #expect(out.color(x: 0, y: 0).red < 20)
        #expect(out.color(x: 32, y: 16).red > 235)
        #expect(source.resampled(to: source.size) == source)
    }
}
