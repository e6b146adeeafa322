import ImagePipe
import Testing

@testable import PipelineCore

@Suite("Size math (SDWebImage's table)")
struct ImageSizeMathTests {
    struct FitCase: Sendable, CustomTestStringConvertible {
        let image: ImageSize, box: ImageSize, preserve: Bool, upscale: Bool, expected: ImageSize
        var testDescription: String { "\(image) in \(box) preserve=\(preserve) up=\(upscale) → \(expected)" }
    }

    /// SDWebImage's `test24ThatScaleSizeCalculation` table, row for row.
    static let fitTable: [FitCase] = [
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 150, height: 150), preserve: true, upscale: false, expected: .init(width: 75, height: 150)),
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 150, height: 150), preserve: true, upscale: true, expected: .init(width: 75, height: 150)),
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 300, height: 300), preserve: true, upscale: false, expected: .init(width: 100, height: 200)),
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 300, height: 300), preserve: true, upscale: true, expected: .init(width: 150, height: 300)),
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 150, height: 150), preserve: false, upscale: false, expected: .init(width: 100, height: 150)),
        FitCase(image: .init(width: 100, height: 200), box: .init(width: 150, height: 150), preserve: false, upscale: true, expected: .init(width: 150, height: 150)),
        FitCase(image: .zero, box: .init(width: 150, height: 150), preserve: true, upscale: true, expected: .zero),
        FitCase(image: .init(width: 100, height: 200), box: .zero, preserve: true, upscale: true, expected: .init(width: 100, height: 200)),
        // SDWebImage's thumbnail and max-pixel encode cases (coder tests 22 and 23).
        FitCase(image: .init(width: 5250, height: 3450), box: .init(width: 400, height: 300), preserve: true, upscale: false, expected: .init(width: 400, height: 263)),
        FitCase(image: .init(width: 5250, height: 3450), box: .init(width: 4000, height: 4000), preserve: true, upscale: false, expected: .init(width: 4000, height: 2629)),
    ]

    @Test("Fit and stretch sizes match SDWebImage's table", arguments: fitTable)
    func fit(_ row: FitCase) {
        #expect(ImageSizeMath.scaledSize(row.image, toFit: row.box, preserveAspectRatio: row.preserve, allowUpscaling: row.upscale) == row.expected)
        if !row.upscale {
            #expect(row.image.fitted(into: row.box, preserveAspectRatio: row.preserve) == row.expected, "what coders call")
        }
    }

    @Test("A byte budget gives the largest same-ratio size within limit / 4 pixels per frame")
    func limitBytes() {
        let image = ImageSize(width: 4000, height: 3000)
        let size = ImageSizeMath.scaledDownSize(image, limitBytes: 4_000_000)
        #expect(size.width * size.height <= 1_000_000)
        #expect(size.width * size.height > 990_000)
        #expect(abs(Double(size.width) / Double(size.height) - 4.0 / 3.0) < 0.01)
        // Frames share the budget.
        let animated = ImageSizeMath.scaledDownSize(image, limitBytes: 4_000_000, frameCount: 4)
        #expect(animated.width * animated.height <= 250_000)
        // A 1-byte budget still leaves one pixel; an empty image gives 1x1.
        #expect(ImageSizeMath.scaledDownSize(image, limitBytes: 1) == ImageSize(width: 1, height: 1))
        #expect(ImageSizeMath.scaledDownSize(.zero, limitBytes: 1000) == ImageSize(width: 1, height: 1))
    }

    @Test("Decode targets apply the budget first, then the box, and never scale up")
    func decodeTargets() {
        let image = ImageSize(width: 4000, height: 3000)
        var options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 400, height: 400))
        #expect(options.targetSize(for: image) == ImageSize(width: 400, height: 300))
        #expect(options.targetSize(for: ImageSize(width: 40, height: 30)) == ImageSize(width: 40, height: 30))
        options.scaleDownLimitBytes = 4 * 100 * 75
        #expect(options.targetSize(for: image) == ImageSize(width: 100, height: 75))
        #expect(options.requestsThumbnail)
        #expect(!ImageDecodeOptions().requestsThumbnail)
        #expect(!ImageDecodeOptions(thumbnailPixelSize: .zero).requestsThumbnail)
        options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100), preserveAspectRatio: false)
        #expect(options.targetSize(for: image) == ImageSize(width: 100, height: 100))
    }

    @Test("Pixel and frame limits refuse oversized headers, overflow included")
    func limits() throws {
        let options = ImageDecodeOptions(maxPixels: 1000, maxFrames: 3)
        try options.checkPixelLimit(ImageSize(width: 10, height: 100))
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 1010, maximum: 1000)) {
            try options.checkPixelLimit(ImageSize(width: 10, height: 101))
        }
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: .max, maximum: 1000)) {
            try options.checkPixelLimit(ImageSize(width: .max / 2, height: 3))
        }
        #expect(throws: ImagePipeError.limitExceeded(.frames, value: 4, maximum: 3)) {
            try options.checkFrameLimit(4)
        }
    }

    @Test("WxH parses as the command line spells sizes")
    func parsing() {
        #expect(ImageSize(parsing: "256x128") == ImageSize(width: 256, height: 128))
        #expect(ImageSize(parsing: "256X128") == ImageSize(width: 256, height: 128))
        #expect(ImageSize(parsing: "256") == nil)
        #expect(ImageSize(parsing: "-1x5") == nil)
        #expect(ImageSize(parsing: "axb") == nil)
    }
}
