import ImagePipe
import Testing

@testable import PipelineCore

@Suite("Pixel buffers")
struct PixelBufferTests {
    @Test("Sizes are checked: wrong byte counts, empty and overflowing sizes are refused")
    func sizeChecks() throws {
        #expect(throws: ImagePipeError.self) { try PixelBuffer(width: 2, height: 2, format: .rgb8, bytes: [0, 0, 0]) }
        #expect(throws: ImagePipeError.self) { try PixelBuffer(width: 0, height: 2, format: .gray8) }
        #expect(throws: ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max)) {
            try PixelBuffer(width: Int.max / 2, height: 3, format: .rgba8)
        }
        let buffer = try PixelBuffer(width: 3, height: 2, format: .grayAlpha8, fill: ImageColor(red: 10, green: 10, blue: 10, alpha: 20))
        #expect(buffer.bytes == [10, 20, 10, 20, 10, 20, 10, 20, 10, 20, 10, 20])
        #expect(buffer.memoryCost == 12)
        #expect(buffer.bytesPerRow == 6)
    }

    @Test("Dropping alpha composites over the background instead of exposing hidden colour")
    func alphaComposite() throws {
        let buffer = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [255, 0, 0, 0, 0, 0, 255, 128])
        let onWhite = buffer.converted(to: .rgb8)
        #expect(onWhite.bytes == [255, 255, 255, 127, 127, 255])
        let onBlack = buffer.converted(to: .rgb8, background: .black)
        #expect(onBlack.bytes == [0, 0, 0, 0, 0, 128])
        let gray = buffer.converted(to: .gray8)
        #expect(gray.bytes[0] == 255)
    }

    @Test("RGBA to RGB rounds each channel over the background the same for every alpha and colour")
    func flattenEveryAlpha() throws {
        // 256 alphas x a few channel values, on a background that is not white or black.
        let values: [UInt8] = [0, 1, 77, 128, 200, 254, 255]
        var bytes: [UInt8] = []
        for alpha in 0...255 { for value in values { bytes += [value, 255 - value, value / 2, UInt8(alpha)] } }
        let buffer = try PixelBuffer(width: values.count, height: 256, format: .rgba8, bytes: bytes)
        let background = ImageColor(red: 30, green: 140, blue: 250)
        let flat = buffer.converted(to: .rgb8, background: background)
        var expected: [UInt8] = []
        for pixel in stride(from: 0, to: bytes.count, by: 4) {
            let alpha = Int(bytes[pixel + 3])
            for (channel, under) in [(0, 30), (1, 140), (2, 250)] {
                expected.append(UInt8((Int(bytes[pixel + channel]) * alpha + under * (255 - alpha) + 127) / 255))
            }
        }
        #expect(flat.format == .rgb8 && flat.size == buffer.size)
        #expect(flat.bytes == expected)
    }

    @Test("Conversions between all formats keep what both formats can hold", arguments: PixelFormat.allCases, PixelFormat.allCases)
    func roundTrips(from: PixelFormat, to: PixelFormat) throws {
        let gray = ImageColor(red: 90, green: 90, blue: 90, alpha: 255)
        let source = try PixelBuffer(width: 5, height: 4, format: from, fill: gray)
        let converted = source.converted(to: to)
        #expect(converted.format == to)
        #expect(converted.size == source.size)
        #expect(converted.color(x: 4, y: 3) == gray)
        #expect(converted.converted(to: from) == source)
    }

    @Test("Colour to gray uses BT.601 luma, white stays 255")
    func luma() throws {
        #expect(ImageColor.white.luma == 255)
        #expect(ImageColor.black.luma == 0)
        #expect(ImageColor(red: 255, green: 0, blue: 0).luma == 77)
        #expect(ImageColor(red: 0, green: 255, blue: 0).luma == 149)
        let rgb = try PixelBuffer(width: 1, height: 1, format: .rgb8, bytes: [0, 255, 0])
        #expect(rgb.converted(to: .gray8).bytes == [149])
    }

    @Test("The narrowest lossless format drops opaque alpha and gray colour")
    func narrowest() throws {
        #expect(try PixelBuffer(width: 2, height: 2, format: .rgba8, fill: .white).narrowestLosslessFormat == .gray8)
        #expect(try PixelBuffer(width: 2, height: 2, format: .rgba8, fill: ImageColor(red: 1, green: 2, blue: 3)).narrowestLosslessFormat == .rgb8)
        #expect(try PixelBuffer(width: 2, height: 2, format: .rgba8, fill: ImageColor(red: 9, green: 9, blue: 9, alpha: 3)).narrowestLosslessFormat == .grayAlpha8)
        #expect(try PixelBuffer(width: 1, height: 1, format: .rgba8, bytes: [1, 2, 3, 4]).narrowestLosslessFormat == .rgba8)
    }

    @Test("Colours parse from #RRGGBB and #RRGGBBAA and print as SDWebImage's #aarrggbb")
    func colours() {
        #expect(ImageColor(hex: "#ff8000") == ImageColor(red: 255, green: 128, blue: 0))
        #expect(ImageColor(hex: "ff800080") == ImageColor(red: 255, green: 128, blue: 0, alpha: 128))
        #expect(ImageColor(hex: "#ff80") == nil)
        #expect(ImageColor(hex: "#gg0000") == nil)
        #expect(ImageColor(red: 255, green: 128, blue: 0, alpha: 16).keyDescription == "#10ff8000")
    }
}

@Suite("EXIF orientation")
struct ImageOrientationTests {
    /// Upright:
    ///     1 2 3
    ///     4 5 6
    static let upright = try! PixelBuffer(width: 3, height: 2, format: .gray8, bytes: [1, 2, 3, 4, 5, 6])

    @Test(
        "Each of the eight orientations turns the pixels as EXIF defines",
        arguments: [
            (ImageOrientation.up, 3, [1, 2, 3, 4, 5, 6]),
            (.upMirrored, 3, [3, 2, 1, 6, 5, 4]),
            (.down, 3, [6, 5, 4, 3, 2, 1]),
            (.downMirrored, 3, [4, 5, 6, 1, 2, 3]),
            (.leftMirrored, 2, [1, 4, 2, 5, 3, 6]),
            (.right, 2, [4, 1, 5, 2, 6, 3]),
            (.rightMirrored, 2, [6, 3, 5, 2, 4, 1]),
            (.left, 2, [3, 6, 2, 5, 1, 4]),
        ] as [(ImageOrientation, Int, [UInt8])])
    func apply(orientation: ImageOrientation, width: Int, expected: [UInt8]) {
        let out = Self.upright.applying(orientation)
        #expect(out.width == width)
        #expect(out.bytes == expected)
        #expect(orientation.displaySize(for: Self.upright.size) == out.size)
    }

    @Test("EXIF values outside 1–8 mean up; an image applies its orientation once")
    func exifValues() throws {
        #expect(ImageOrientation(exifValue: 0) == .up)
        #expect(ImageOrientation(exifValue: 9) == .up)
        #expect(ImageOrientation(exifValue: 6) == .right)
        let image = Image(Self.upright, format: .jpeg, orientation: .right)
        #expect(image.displaySize == ImageSize(width: 2, height: 3))
        let upright = try image.applyingOrientation()
        #expect(upright.orientation == .up)
        #expect(upright.pixelSize == ImageSize(width: 2, height: 3))
        #expect(upright.format == .jpeg)
        #expect(try upright.applyingOrientation().firstFrame == upright.firstFrame)
    }
}
