import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// Outputs are checked against the pixel limit before anything is allocated: a request for a
/// gigapixel canvas is a typed error, never a trap or an out-of-memory kill.
@Suite("Transformer limits")
struct TransformerLimitTests {
    /// 40 x 20 opaque RGB, decoded (as far as the transformers know) with `maxPixels`.
    static func image(maxPixels: Int = ImageDecodeOptions.defaultMaxPixels) throws -> Image {
        let buffer = try PixelBuffer(width: 40, height: 20, format: .rgb8, fill: ImageColor(red: 200, green: 10, blue: 10))
        return Image(buffer, format: .png, metadata: ImageMetadata(decodeOptions: ImageDecodeOptions(maxPixels: maxPixels)))
    }

    static func pixelLimit(_ value: Int, _ maximum: Int = ImageDecodeOptions.defaultMaxPixels) -> ImagePipeError {
        .limitExceeded(.pixels, value: value, maximum: maximum)
    }

    @Test("resize:100000x100000 is refused with the pixel limit's error, before allocating 30 GB")
    func resizeOverLimit() throws {
        let huge = ResizingTransformer(size: ImageSize(width: 100_000, height: 100_000))
        #expect(throws: Self.pixelLimit(10_000_000_000)) { try huge.apply(to: try Self.image()) }
        let message = "pixels limit exceeded: 10000000000 is more than the maximum of 100000000; raise ImageDecodeOptions.maxPixels if this is expected"
        #expect(Self.pixelLimit(10_000_000_000).description == message)
    }

    @Test("Each resize mode checks the size it would make: fit's fitted size, fill's and cover's box")
    func resizeModes() throws {
        let source = try Self.image(maxPixels: 800)
        // Fit of 40x20 into 100x100 is 100x50: 5000 pixels.
        #expect(throws: Self.pixelLimit(5000, 800)) {
            try ResizingTransformer(size: ImageSize(width: 100, height: 100), scaleMode: .aspectFit).apply(to: source)
        }
        #expect(throws: Self.pixelLimit(900, 800)) {
            try ResizingTransformer(size: ImageSize(width: 30, height: 30), scaleMode: .aspectFill).apply(to: source)
        }
        let fits = try ResizingTransformer(size: ImageSize(width: 40, height: 20), scaleMode: .fill).apply(to: source)
        #expect(fits.pixelSize == ImageSize(width: 40, height: 20), "exactly at the limit is allowed")
    }

    @Test("A box of Int.max sides makes no arithmetic overflow: the fitted size is computed, then refused")
    func resizeOverflow() throws {
        let source = try Self.image()
        let box = ImageSize(width: .max, height: .max)
        let fit = ResizingTransformer(size: box, scaleMode: .aspectFit)
        #expect(try fit.outputSize(for: source.pixelSize) == ImageSize(width: .max, height: Int.max / 2 + 1))
        #expect(throws: Self.pixelLimit(.max)) { try fit.apply(to: source) }
        #expect(throws: Self.pixelLimit(.max)) { try ResizingTransformer(size: box, scaleMode: .aspectFill).apply(to: source) }
        let thin = ResizingTransformer(size: ImageSize(width: .max, height: 1), scaleMode: .aspectFit)
        #expect(try thin.outputSize(for: source.pixelSize) == ImageSize(width: 2, height: 1))
    }

    @Test("crop:0,0,60000,60000 is refused with the pixel limit's error; a crop far off the image is transparent")
    func crop() throws {
        let source = try Self.image()
        #expect(throws: Self.pixelLimit(3_600_000_000)) {
            try CroppingTransformer(rect: ImageRect(x: 0, y: 0, width: 60_000, height: 60_000)).apply(to: source)
        }
        // Offsets near Int's ends: no overflow, nothing of the image inside.
        for rect in [
            ImageRect(x: .max - 5, y: 0, width: 10, height: 10), ImageRect(x: .min, y: .min, width: 10, height: 10),
            ImageRect(x: 5, y: .max, width: 10, height: 10),
        ] {
            let output = try CroppingTransformer(rect: rect).apply(to: source)
            #expect(output.pixelSize == ImageSize(width: 10, height: 10))
            #expect(output.firstFrame.color(x: 0, y: 0).alpha == 0, "\(rect)")
        }
        #expect(CroppingTransformer.overlap(35, .max, 40) == 35..<40)
        #expect(CroppingTransformer.overlap(-5, 10, 40) == 0..<5)
        #expect(CroppingTransformer.overlap(.min, 10, 40).isEmpty)
    }

    @Test("Rotation checks the grown canvas: 45° of 40x20 needs 43x43, a quarter turn 20x40")
    func rotation() throws {
        let source = try Self.image(maxPixels: 800)
        #expect(throws: Self.pixelLimit(43 * 43, 800)) { try RotationTransformer(degreesClockwise: -45, fitSize: true).apply(to: source) }
        #expect(try RotationTransformer(degreesClockwise: -90).apply(to: source).pixelSize == ImageSize(width: 20, height: 40))
        #expect(try RotationTransformer(degreesClockwise: -45, fitSize: false).apply(to: source).pixelSize == ImageSize(width: 40, height: 20))
        // Angles from a request: huge ones reduce without trapping; non-finite ones are refused.
        _ = try RotationTransformer(degreesClockwise: 1e300).apply(to: try Self.image())
        #expect(try RotationTransformer(degreesClockwise: 90 + 360 * 1000).outputSize(for: source.pixelSize) == ImageSize(width: 20, height: 40))
        for angle in [Double.nan, .infinity] {
            #expect(throws: Self.pixelLimit(.max, 800), "the request's limit") { try RotationTransformer(degreesClockwise: angle, fitSize: false).apply(to: source) }
        }
    }

    @Test("Same-size transformers (round corners, tint, grayscale, flip, blur) refuse an input already over the limit")
    func sameSize() throws {
        let transformers: [any PixelTransformer] = [
            RoundCornerTransformer(radius: 5), TintTransformer(color: .black), GrayscaleTransformer(),
            FlippingTransformer(horizontal: true, vertical: false), BlurTransformer(radius: 2),
        ]
        for transformer in transformers {
            #expect(try transformer.outputSize(for: ImageSize(width: 40, height: 20)) == ImageSize(width: 40, height: 20))
            #expect(throws: Self.pixelLimit(800, 799), "\(transformer.key)") { try transformer.apply(to: try Self.image(maxPixels: 799)) }
            #expect(try transformer.apply(to: try Self.image(maxPixels: 800)).pixelSize == ImageSize(width: 40, height: 20))
        }
    }

    @Test("A blur radius over maxRadius is refused naming BlurTransformer.maxRadius; raising it allows the blur")
    func blurRadius() throws {
        let source = try Self.image()
        let error = ImagePipeError.limitExceeded(.blurRadius, value: 1001, maximum: 1000)
        #expect(throws: error) { try BlurTransformer(radius: 1000.5).apply(to: source) }
        #expect(error.description.contains("raise BlurTransformer.maxRadius"))
        #expect(throws: ImagePipeError.self) { try BlurTransformer(radius: .infinity).apply(to: source) }
        #expect(throws: ImagePipeError.self) { try BlurTransformer(radius: 1e30, maxRadius: .infinity).apply(to: source) }
        #expect(try BlurTransformer(radius: 2000, maxRadius: 5000).apply(to: source).pixelSize == source.pixelSize)
        #expect(BlurTransformer(radius: .nan).radius == 0)
    }

    @Test("A blur window wider than the image gives the running box sum's exact result")
    func blurWideWindow() throws {
        // A 3 x 7 gradient; radius 20 makes a 39-pixel box, wider than either side.
        let bytes = (0..<21).map { UInt8($0 * 12) }
        let buffer = try PixelBuffer(width: 3, height: 7, format: .gray8, bytes: bytes)
        let blur = BlurTransformer(radius: 20)
        #expect(blur.boxWidth == 39)
        let output = try blur.transform(buffer)
        #expect(output.bytes == Self.referenceBlur(bytes, width: 3, height: 7, box: 39))
    }

    /// Three horizontal-then-vertical box passes, each window summed pixel by pixel with the edge
    /// pixels repeated: the definition the blur's running sum must match.
    static func referenceBlur(_ input: [UInt8], width: Int, height: Int, box: Int) -> [UInt8] {
        var pixels = input
        let half = box / 2
        func pass(_ source: [UInt8], horizontal: Bool) -> [UInt8] {
            var out = source
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0
                    for d in -half...half {
                        let sx = horizontal ? min(max(x + d, 0), width - 1) : x
                        let sy = horizontal ? y : min(max(y + d, 0), height - 1)
                        sum += Int(source[sy * width + sx])
                    }
                    out[y * width + x] = UInt8((sum + half) / box)
                }
            }
            return out
        }
        for _ in 0..<3 { pixels = pass(pass(pixels, horizontal: true), horizontal: false) }
        return pixels
    }

    @Test("An animation is checked once against the limit before any frame is transformed")
    func animation() throws {
        let frames = try (0..<3).map { _ in try PixelBuffer(width: 40, height: 20, format: .rgba8) }
        let animation = try AnimatedImage(provider: TestAnimation(data: Data(), format: .gif, frames: frames))
        let image = Image(animation: animation, metadata: ImageMetadata(decodeOptions: ImageDecodeOptions(maxPixels: 1000)))
        #expect(throws: Self.pixelLimit(1600, 1000)) { try ResizingTransformer(size: ImageSize(width: 40, height: 40)).apply(to: image) }
        #expect(try ResizingTransformer(size: ImageSize(width: 20, height: 20)).apply(to: image).frameCount == 3)
    }

    @Test("In a pipeline every step is checked against the limit the first image carried")
    func pipeline() throws {
        let pipeline = PipelineTransformer([
            ResizingTransformer(size: ImageSize(width: 20, height: 10)),
            CroppingTransformer(rect: ImageRect(x: 0, y: 0, width: 30, height: 30)),
        ])
        #expect(throws: Self.pixelLimit(900, 800)) { try pipeline.apply(to: try Self.image(maxPixels: 800)) }
        #expect(try pipeline.apply(to: try Self.image(maxPixels: 900)).pixelSize == ImageSize(width: 30, height: 30))
    }

    @Test("An image made in memory, without decode options, is held to the default limit")
    func defaultLimit() throws {
        let plain = Image(try PixelBuffer(width: 4, height: 4, format: .rgb8))
        #expect(throws: Self.pixelLimit(100_000_001)) {
            try ResizingTransformer(size: ImageSize(width: 100_000_001, height: 1)).apply(to: plain)
        }
    }
}
