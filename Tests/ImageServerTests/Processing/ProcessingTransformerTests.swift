import PipelineCore
import Testing

@testable import ImageServer

@Suite("The processing steps on pixels")
struct ProcessingTransformerTests {
    /// 40×20, stored sideways: its EXIF orientation turns it to 20×40.
    static func sideways() throws -> Image {
        var image = Image(try PixelBuffer(width: 40, height: 20, format: .rgb8, fill: .white), format: .png)
        image.orientation = .right
        return image
    }

    static func transform(_ image: Image, _ change: (inout ProcessingOptions) -> Void) throws -> Image {
        var options = ProcessingOptions()
        change(&options)
        return try ProcessingTransformer(options: options, maxOutputPixels: 1 << 20).apply(to: image)
    }

    @Test("the EXIF orientation applies before everything, unless ar:0 keeps the stored pixels")
    func autoRotate() throws {
        #expect(try Self.transform(Self.sideways()) { $0.width = 10 }.displaySize == ImageSize(width: 10, height: 20))
        #expect(
            try Self.transform(Self.sideways()) {
                $0.width = 10
                $0.autoRotate = false
            }.displaySize == ImageSize(width: 10, height: 5))
    }

    @Test("sharpen, pixelate and flatten keep the size; pixelate makes blocks of one colour")
    func filters() throws {
        var bytes = [UInt8](repeating: 0, count: 8 * 8)
        for index in bytes.indices { bytes[index] = UInt8(index * 4) }
        let image = Image(try PixelBuffer(width: 8, height: 8, format: .gray8, bytes: bytes), format: .png)
        let blocks = try Self.transform(image) { $0.pixelate = 4 }.firstFrame
        #expect(blocks.size == ImageSize(width: 8, height: 8))
        #expect(blocks.color(x: 0, y: 0) == blocks.color(x: 3, y: 3) && blocks.color(x: 0, y: 0) != blocks.color(x: 4, y: 0))
        #expect(try Self.transform(image) { $0.sharpen = 1 }.displaySize == ImageSize(width: 8, height: 8))
        let clear = Image(try PixelBuffer(width: 4, height: 4, format: .rgba8, fill: .clear), format: .png)
        let flat = try Self.transform(clear) { $0.background = ImageColor(red: 0, green: 128, blue: 0) }.firstFrame
        #expect(!flat.format.hasAlpha && flat.color(x: 1, y: 1) == ImageColor(red: 0, green: 128, blue: 0))
    }

    @Test("a step past the output-pixel limit fails before any pixel is made")
    func outputLimit() throws {
        let image = Image(try PixelBuffer(width: 4, height: 4, format: .rgb8), format: .png)
        #expect(throws: ImagePipeError.self) { try Self.transform(image) { $0.padding = .init(top: 1 << 20, right: 0, bottom: 0, left: 0) } }
    }
}
