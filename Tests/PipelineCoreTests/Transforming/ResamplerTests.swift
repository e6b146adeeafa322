import TestSupport
import Testing

@testable import PipelineCore

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

    @Test(
        "A solid colour stays exactly that colour at any size, in every filter and format",
        arguments: ResamplingFilter.allCases, PixelFormat.allCases)
    func solidColour(filter: ResamplingFilter, format: PixelFormat) throws {
        let colour = ImageColor(red: 200, green: 100, blue: 50, alpha: 255)
        let source = try PixelBuffer(width: 97, height: 61, format: format, fill: colour)
        for size in [ImageSize(width: 10, height: 7), ImageSize(width: 150, height: 100), ImageSize(width: 1, height: 1), ImageSize(width: 97, height: 5)] {
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

    @Test(
        "Gray, RGB and opaque RGBA give the same colours: every channel count's loop computes one filter",
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
        for size in [
            ImageSize(width: 17, height: 11), ImageSize(width: 26, height: 37), ImageSize(width: 53, height: 9),
            ImageSize(width: 111, height: 80), ImageSize(width: 1, height: 1),
        ] {
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

    @Test(
        "Every output byte equals a plain reference of the same filter: 1xN, Nx1, odd sizes, extreme ratios, up and down",
        arguments: PixelFormat.allCases)
    func matchesPlainReference(format: PixelFormat) throws {
        // The passes read and write through unchecked pointers, vector loads past a pixel's end and
        // uninitialised outputs: any byte missed, misplaced or read from the wrong row differs here.
        var state: UInt32 = 2024
        func noise(_ width: Int, _ height: Int) throws -> PixelBuffer {
            let bytes = (0..<width * height * format.bytesPerPixel).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
        }
        let cases: [(ImageSize, ImageSize)] = [
            (ImageSize(width: 1, height: 37), ImageSize(width: 1, height: 5)),
            (ImageSize(width: 1, height: 5), ImageSize(width: 1, height: 40)),
            (ImageSize(width: 53, height: 1), ImageSize(width: 7, height: 1)),
            (ImageSize(width: 53, height: 1), ImageSize(width: 200, height: 1)),
            (ImageSize(width: 53, height: 37), ImageSize(width: 17, height: 11)),
            (ImageSize(width: 53, height: 37), ImageSize(width: 26, height: 37)),
            (ImageSize(width: 61, height: 29), ImageSize(width: 31, height: 13)),
            (ImageSize(width: 1000, height: 3), ImageSize(width: 3, height: 1)),
            (ImageSize(width: 3, height: 1000), ImageSize(width: 1, height: 7)),
            // Boxes both ways (5 x 5): alpha is premultiplied row by row as the box reads it.
            (ImageSize(width: 203, height: 151), ImageSize(width: 20, height: 15)),
            (ImageSize(width: 5, height: 3), ImageSize(width: 97, height: 61)),
            (ImageSize(width: 2, height: 2), ImageSize(width: 1, height: 1)),
        ]
        for filter in ResamplingFilter.allCases {
            for (from, to) in cases {
                let source = try noise(from.width, from.height)
                let out = source.resampled(to: to, filter: filter)
                #expect(out.size == to && out.format == format)
                #expect(out.bytes == PlainResampler.resample(source, to: to, filter: filter), "\(filter) \(from) -> \(to)")
            }
        }
    }
}

/// The resampler's arithmetic without pointers or vectors: the same coefficients, steps and
/// rounding, one byte at a time through checked array indexing.
private enum PlainResampler {
    static func resample(_ source: PixelBuffer, to size: ImageSize, filter: ResamplingFilter) -> [UInt8] {
        let channels = source.format.bytesPerPixel, alpha = source.format.hasAlpha
        var (width, height, bytes) = (source.width, source.height, source.bytes)
        if alpha { bytes = premultiply(bytes, channels: channels) }
        let factorX = max(width / (size.width * 2), 1), factorY = max(height / (size.height * 2), 1)
        if factorX > 1 || factorY > 1 {
            (width, height, bytes) = box(bytes, width: width, height: height, channels: channels, factorX: factorX, factorY: factorY)
        }
        if size.height < height {
            bytes = columns(bytes, width: width, height: height, channels: channels, to: size.height, filter: filter)
            height = size.height
        }
        if width != size.width {
            bytes = rows(bytes, width: width, height: height, channels: channels, to: size.width, filter: filter)
            width = size.width
        }
        if height != size.height {
            bytes = columns(bytes, width: width, height: height, channels: channels, to: size.height, filter: filter)
        }
        return alpha ? unpremultiply(bytes, channels: channels) : bytes
    }

    static func clamp(_ sum: Int32) -> UInt8 {
        UInt8(min(max((sum + (1 << (Resampler.precisionBits - 1))) >> Resampler.precisionBits, 0), 255))
    }

    static func rows(_ bytes: [UInt8], width: Int, height: Int, channels: Int, to outWidth: Int, filter: ResamplingFilter) -> [UInt8] {
        let c = Resampler.coefficients(inSize: width, outSize: outWidth, filter: filter)
        var out: [UInt8] = []
        for y in 0..<height {
            for x in 0..<outWidth {
                for ch in 0..<channels {
                    var sum: Int32 = 0
                    for t in 0..<c.counts[x] {
                        sum += Int32(c.weights[x * c.stride + t]) * Int32(bytes[(y * width + c.starts[x] + t) * channels + ch])
                    }
                    out.append(clamp(sum))
                }
            }
        }
        return out
    }

    static func columns(_ bytes: [UInt8], width: Int, height: Int, channels: Int, to outHeight: Int, filter: ResamplingFilter) -> [UInt8] {
        let c = Resampler.coefficients(inSize: height, outSize: outHeight, filter: filter)
        let rowBytes = width * channels
        var out: [UInt8] = []
        for y in 0..<outHeight {
            for i in 0..<rowBytes {
                var sum: Int32 = 0
                for t in 0..<c.counts[y] { sum += Int32(c.weights[y * c.stride + t]) * Int32(bytes[(c.starts[y] + t) * rowBytes + i]) }
                out.append(clamp(sum))
            }
        }
        return out
    }

    static func box(_ bytes: [UInt8], width: Int, height: Int, channels: Int, factorX: Int, factorY: Int) -> (Int, Int, [UInt8]) {
        let outWidth = (width + factorX - 1) / factorX, outHeight = (height + factorY - 1) / factorY
        var out: [UInt8] = []
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                for ch in 0..<channels {
                    var sum = 0, n = 0
                    for sy in (y * factorY)..<min((y + 1) * factorY, height) {
                        for sx in (x * factorX)..<min((x + 1) * factorX, width) {
                            sum += Int(bytes[(sy * width + sx) * channels + ch])
                            n += 1
                        }
                    }
                    out.append(UInt8((sum + n / 2) / n))
                }
            }
        }
        return (outWidth, outHeight, out)
    }

    static func premultiply(_ bytes: [UInt8], channels: Int) -> [UInt8] {
        var out = bytes
        for i in stride(from: 0, to: out.count, by: channels) {
            let a = Int(out[i + channels - 1])
            for ch in 0..<(channels - 1) { out[i + ch] = UInt8((Int(out[i + ch]) * a + 127) / 255) }
        }
        return out
    }

    static func unpremultiply(_ bytes: [UInt8], channels: Int) -> [UInt8] {
        var out = bytes
        for i in stride(from: 0, to: out.count, by: channels) {
            let a = Int(out[i + channels - 1])
            for ch in 0..<(channels - 1) { out[i + ch] = a == 0 ? 0 : UInt8(min((Int(out[i + ch]) * 255 + a / 2) / a, 255)) }
        }
        return out
    }
}
