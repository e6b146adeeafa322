import CodersBMP
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Every BMP depth and layout decodes to the pixels written: the ppmtobmp fixtures as netpbm's
/// bmptopnm reads them, and the layouts it cannot write as `BMPWriter` wrote them.
@Suite("BMP depths and layouts", .dedicatedThreads)
struct BMPDepthTests {
    static let fixtures = Corpus.rows("bmp").filter { $0.file.hasSuffix(".bmp") }

    @Test("decodes as bmptopnm does", arguments: fixtures)
    func matchesNetpbm(_ row: Corpus.Row) throws {
        let image = try BMPCoder().decode(try Data(contentsOf: row.url), options: ImageDecodeOptions())
        let name = (row.file as NSString).deletingPathExtension
        let reference = try #require(ReferencePAM.read(Corpus.root.appendingPathComponent("bmp/reference/\(name).pam"))?.first)
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.format == .bmp)
        #expect(ReferencePAM.maxDifference(image.firstFrame, reference) == 0)
    }

    static let width = 7, height = 5
    static func color(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
        ((x * 37 + y * 11) % 256, (x * 5 + y * 60) % 256, (200 - x * 20 - y * 7 + 256) % 256, (x * 40 + y * 13) % 256)
    }

    func decode(_ layout: BMPWriter.Layout, rows: [[UInt8]], options: ImageDecodeOptions = ImageDecodeOptions()) throws -> Image {
        try BMPCoder().decode(BMPWriter.file(width: Self.width, height: Self.height, layout: layout, rows: rows), options: options)
    }

    func rows(_ pixel: (Int, Int) -> [UInt8]) -> [[UInt8]] {
        (0..<Self.height).map { y in (0..<Self.width).flatMap { x in pixel(x, y) } }
    }

    func expect(_ image: Image, _ format: PixelFormat, _ expected: (Int, Int) -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.pixelFormat == format, sourceLocation: sourceLocation)
        let frame = image.firstFrame
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let c = frame.color(x: x, y: y)
                let got = [c.red, c.green, c.blue, c.alpha].prefix(format.hasAlpha ? 4 : 3).map(Int.init)
                #expect(got == expected(x, y).map(Int.init), "pixel \(x),\(y)", sourceLocation: sourceLocation)
                if got != expected(x, y).map(Int.init) { return }
            }
        }
    }

    static func scale(_ value: Int, bits: Int) -> UInt8 { UInt8((value * 255 + ((1 << bits) - 1) / 2) / ((1 << bits) - 1)) }

    @Test("24 bits, top-down")
    func topDown24() throws {
        let pixels = rows { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.b), UInt8(c.g), UInt8(c.r)]
        }
        let image = try decode(BMPWriter.Layout(bits: 24, topDown: true), rows: pixels)
        expect(image, .rgb8) { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.r), UInt8(c.g), UInt8(c.b)]
        }
    }

    @Test("16 bits, 5-5-5 by default and 5-6-5 with bit masks")
    func sixteenBits() throws {
        let five = rows { x, y in
            let c = Self.color(x, y)
            return BMPWriter.le16((c.r >> 3) << 10 | (c.g >> 3) << 5 | c.b >> 3)
        }
        expect(try decode(BMPWriter.Layout(bits: 16), rows: five), .rgb8) { x, y in
            let c = Self.color(x, y)
            return [Self.scale(c.r >> 3, bits: 5), Self.scale(c.g >> 3, bits: 5), Self.scale(c.b >> 3, bits: 5)]
        }
        let six = rows { x, y in
            let c = Self.color(x, y)
            return BMPWriter.le16((c.r >> 3) << 11 | (c.g >> 2) << 5 | c.b >> 3)
        }
        for headerSize in [40, 56, 124] {
            let layout = BMPWriter.Layout(headerSize: headerSize, bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x001F])
            expect(try decode(layout, rows: six), .rgb8) { x, y in
                let c = Self.color(x, y)
                return [Self.scale(c.r >> 3, bits: 5), Self.scale(c.g >> 2, bits: 6), Self.scale(c.b >> 3, bits: 5)]
            }
        }
    }

    @Test("16 bits with an alpha mask (ALPHABITFIELDS, 4-4-4-4)")
    func sixteenBitsAlpha() throws {
        let pixels = rows { x, y in
            let c = Self.color(x, y)
            return BMPWriter.le16((c.a >> 4) << 12 | (c.r >> 4) << 8 | (c.g >> 4) << 4 | c.b >> 4)
        }
        let layout = BMPWriter.Layout(bits: 16, compression: 6, masks: [0x0F00, 0x00F0, 0x000F, 0xF000])
        expect(try decode(layout, rows: pixels), .rgba8) { x, y in
            let c = Self.color(x, y)
            return [c.r >> 4, c.g >> 4, c.b >> 4, c.a >> 4].map { UInt8($0 * 17) }
        }
    }

    @Test("32 bits: the fourth byte is alpha only where the header has an alpha mask")
    func thirtyTwoBits() throws {
        let pixels = rows { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.b), UInt8(c.g), UInt8(c.r), UInt8(c.a)]
        }
        let rgb: (Int, Int) -> [UInt8] = { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.r), UInt8(c.g), UInt8(c.b)]
        }
        let rgba: (Int, Int) -> [UInt8] = { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.r), UInt8(c.g), UInt8(c.b), UInt8(c.a)]
        }
        expect(try decode(BMPWriter.Layout(bits: 32), rows: pixels), .rgb8, rgb)
        let masks: [UInt32] = [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000]
        expect(try decode(BMPWriter.Layout(headerSize: 124, bits: 32, compression: 3, masks: masks), rows: pixels), .rgba8, rgba)
        expect(try decode(BMPWriter.Layout(headerSize: 108, bits: 32, masks: masks), rows: pixels), .rgba8, rgba)
        expect(try decode(BMPWriter.Layout(bits: 32, compression: 6, masks: masks), rows: pixels), .rgba8, rgba)
        // An alpha mask over bytes that are all zero: writers that mean opaque.
        let zeroAlpha = rows { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.b), UInt8(c.g), UInt8(c.r), 0]
        }
        expect(try decode(BMPWriter.Layout(headerSize: 124, bits: 32, compression: 3, masks: masks), rows: zeroAlpha), .rgb8, rgb)
        // Masks in another order (RGBA in memory as ABGR words).
        let swapped = rows { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.r), UInt8(c.g), UInt8(c.b), UInt8(c.a)]
        }
        expect(try decode(BMPWriter.Layout(headerSize: 124, bits: 32, compression: 3, masks: [0xFF, 0xFF00, 0xFF_0000, 0xFF00_0000]), rows: swapped), .rgba8, rgba)
    }

    static let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [250, 250, 250]]

    @Test("2-bit palette, and indices past the palette are black")
    func twoBits() throws {
        let pixels = rows { _, _ in [] }.enumerated().map { y, _ in
            (0..<2).map { byte in UInt8((0..<4).reduce(0) { $0 << 2 | ((byte * 4 + $1 + y) % 4) }) }
        }
        expect(try decode(BMPWriter.Layout(bits: 2, palette: Self.palette), rows: pixels), .rgb8) { x, y in Self.palette[(x + y) % 4] }
        let short = BMPWriter.Layout(bits: 2, palette: Array(Self.palette.prefix(2)))
        expect(try decode(short, rows: pixels), .rgb8) { x, y in (x + y) % 4 < 2 ? Self.palette[(x + y) % 4] : [0, 0, 0] }
    }

    @Test("RLE8: runs, absolute runs, end of line and a delta; skipped pixels are transparent")
    func rle8() throws {
        // Bottom row first: row 4 (bottom) 7 x index 1; row 3 absolute 0,1,2,3 then run of 3 x 2;
        // end of line, a delta of 2 right to row 2 x=2, then run of 5 x 3; end of image.
        let stream: [UInt8] = [7, 1, 0, 0, 0, 4, 0, 1, 2, 3, 3, 2, 0, 0, 0, 2, 2, 0, 5, 3, 0, 1]
        let image = try decode(BMPWriter.Layout(bits: 8, compression: 1, palette: Self.palette), rows: [stream])
        expect(image, .rgba8) { x, y in
            switch y {
            case 4: Self.palette[1] + [255]
            case 3: Self.palette[x < 4 ? x : 2] + [255]
            case 2 where x >= 2: Self.palette[3] + [255]
            default: [0, 0, 0, 0]
            }
        }
    }

    @Test("RLE4: alternating runs and absolute runs fill the image")
    func rle4() throws {
        var stream: [UInt8] = []
        for y in 0..<Self.height {
            // 3 pixels alternating 1,2 then absolute 3 pixels 3,0,3 then run of 1 x 1 (7 total).
            stream += [3, 0x12, 0, 3, 0x30, 0x30, 1, UInt8(0x10 + y % 2)]
            stream += [0, 0]
        }
        stream += [0, 1]
        let image = try decode(BMPWriter.Layout(bits: 4, compression: 2, palette: Self.palette), rows: [stream])
        expect(image, .rgb8) { x, _ in Self.palette[[1, 2, 1, 3, 0, 3, 1][x]] }
    }

    @Test("a V5 header's embedded ICC profile is handed over")
    func profile() throws {
        let profile = ColorFixtures.displayP3Profile()
        let pixels = rows { x, y in
            let c = Self.color(x, y)
            return [UInt8(c.b), UInt8(c.g), UInt8(c.r)]
        }
        let image = try decode(BMPWriter.Layout(headerSize: 124, bits: 24, profile: profile), rows: pixels)
        #expect(image.metadata.colorProfile == .icc(profile))
    }

    @Test("thumbnails are the full decode resampled")
    func thumbnail() throws {
        let data = try Corpus.data("bmp", "rgb24.bmp")
        let full = try BMPCoder().decode(data, options: ImageDecodeOptions())
        let thumbnail = try BMPCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 10, height: 10)))
        #expect(thumbnail.pixelSize == ImageSize(width: 10, height: 7))
        #expect(thumbnail.firstFrame == full.firstFrame.resampled(to: thumbnail.pixelSize))
    }
}
