import CodersAVIF
import CodersBMP
import CodersGIF
import CodersHEIF
import CodersJPEG
import CodersPNG
import CodersTIFF
import CodersWebP
import Foundation
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

/// The kit on every built-in coder, one test case per corpus sample so a failure names the file.
/// Samples cover each coder's pixel formats, interlaced/progressive files, and animations; they are
/// small, because the kit decodes each one some thirty times (damage, limits, thumbnails, round trips).
@Suite("Built-in coders keep the kit's coder contracts", .dedicatedThreads)
struct BuiltInCoderConformanceTests {
    static let png = CorpusSamples.rows(
        "pngsuite",
        [
            "PngSuite.png", "basn0g08.png", "basi0g16.png", "basn2c08.png", "basn3p04.png", "basn4a08.png", "basi6a08.png",
        ])
    static let jpeg = CorpusSamples.rows(
        "jpeg",
        [
            "jpeg-decoder/reftest/mozilla/jpg-progressive.jpg", "jpeg-decoder/reftest/mozilla/jpg-gray.jpg",
            "jpeg-decoder/reftest/mozilla/jpg-size-15x15.jpg", "jpeg-decoder/reftest/grayscale_24x16_sampling2x2.jpg",
            "jpeg-decoder/reftest/progressive3.jpg",
            // Arithmetic-coded: libjpeg cannot suspend inside it, which once made partial decodes throw.
            "libjpeg-turbo/testimgari.jpg",
        ])
    static let webp = CorpusSamples.rows(
        "webp",
        [
            "image-rs/images/webp/lossy_images/simple-rgb.webp", "image-rs/images/webp/extended_images/lossy_alpha.webp",
            "image-rs/images/webp/lossless_images/2-color.webp", "image-webp/regression/tiny.webp",
            "image-rs/images/webp/extended_images/anim.webp", "image-webp/animated/random_lossy.webp",
            "image-webp/animated/random_lossless.webp",
        ])
    static let gif = CorpusSamples.rows(
        "gif",
        [
            "peterdn-gif-test-suite/static_transparent.gif", "pygif-test-suite/4095-codes.gif",
            "image-rs/images/gif/anim/any-disposal.gif", "peterdn-gif-test-suite/animated_loop.gif",
            "peterdn-gif-test-suite/animated_transparent_frame_restoreprev_loop.gif",
        ])

    static let tiff = CorpusSamples.rows(
        "tiff",
        [
            "rgb8-tiled-lzw.tif", "gray16-none.tif", "graya8-unassociated.tif", "palette-lzw.tif", "cmyk8-none.tif",
            "rgb8-jpeg-ycbcr.tif", "ycbcr-420-none.tif", "multipage.tif",
        ])
    static let bmp = CorpusSamples.rows("bmp", ["rgb24.bmp", "palette4-os2.bmp", "mono1.bmp", "palette8.bmp", "icons-dib-png.ico", "icons-dib.ico"])

    @Test("the corpus has every sample these tests name")
    func samplesExist() {
        #expect(Self.png.count == 7 && Self.jpeg.count == 6 && Self.webp.count == 7 && Self.gif.count == 5)
        #expect(Self.tiff.count == 8 && Self.bmp.count == 6)
        #expect(Self.webp.contains { $0.frames > 1 } && Self.gif.contains { $0.frames > 1 })
    }

    /// First-frame references, with the tolerance each allows: an interlaced PNG must equal its
    /// non-interlaced twin exactly; lossy WebP frames come from another VP8 decoder (image-webp), so
    /// they may differ by a few levels.
    static let references: [String: (String, Int)] = [
        "basn0g08.png": ("basn0g08.png", 0), "basn2c08.png": ("basn2c08.png", 0), "basn3p04.png": ("basn3p04.png", 0),
        "basn4a08.png": ("basn4a08.png", 0), "basi6a08.png": ("basn6a08.png", 0),
        "peterdn-gif-test-suite/animated_loop.gif": ("peterdn-gif-test-suite/frames/animated_loop-0.png", 0),
        "image-webp/animated/random_lossless.webp": ("image-webp/reference/animated/random_lossless-1.png", 1),
        "image-webp/animated/random_lossy.webp": ("image-webp/reference/animated/random_lossy-1.png", 8),
    ]

    /// PNG, JPEG and WebP write ICC profiles, EXIF and XMP, so the kit checks they round-trip (GIF:
    /// the profile; it has no EXIF).
    static let writingProfilesAndMetadata: CoderConformance.Options = {
        var options = CoderConformance.Options()
        options.colorProfile = ColorFixtures.displayP3Profile()
        options.writesMetadata = true
        return options
    }()

    func sample(_ row: Corpus.Row, _ format: ImageFormat) throws -> CoderSample {
        let reference = Self.references[row.file]
        return try CorpusSamples.sample(row, format: format, reference: reference?.0, tolerance: reference?.1 ?? 0)
    }

    @Test("PNGCoder (still, progressive)", arguments: png)
    func pngCoder(_ row: Corpus.Row) async throws {
        await CoderConformance.check(PNGCoder(), samples: [try sample(row, .png)], options: Self.writingProfilesAndMetadata)
    }

    /// Animated PNGs made by TestSupport's writer: partial frames with every disposal and both
    /// blends, a default image outside the animation, and opaque whole frames.
    static let apng: [CoderSample] = {
        typealias Frame = APNGWriter.Frame
        func pattern(_ width: Int, _ height: Int, channels: Int, seed: Int) -> [UInt8] {
            (0..<width * height).flatMap { p -> [UInt8] in
                let pixel = [UInt8((p * 7 + seed * 40) & 0xFF), UInt8((p * 3 + seed * 90) & 0xFF), UInt8((seed * 70 + p / 5) & 0xFF), UInt8(120 + (p + seed) % 136)]
                return Array(pixel.prefix(channels))
            }
        }
        let size = ImageSize(width: 24, height: 16)
        let mixed = APNGWriter.file(
            width: 24, height: 16,
            frames: [
                Frame(pixels: pattern(24, 16, channels: 4, seed: 0), width: 24, height: 16, dispose: 1),
                Frame(pixels: pattern(10, 6, channels: 4, seed: 1), width: 10, height: 6, x: 3, y: 2, dispose: 2, blend: 1),
                Frame(pixels: pattern(8, 8, channels: 4, seed: 2), width: 8, height: 8, x: 16, y: 8, dispose: 0, blend: 1),
                Frame(pixels: pattern(12, 4, channels: 4, seed: 3), width: 12, height: 4, x: 0, y: 12, dispose: 1, blend: 0),
                Frame(pixels: pattern(24, 16, channels: 4, seed: 4), width: 24, height: 16, blend: 1),
            ], loops: 2)
        let withDefault = APNGWriter.file(
            width: 24, height: 16,
            frames: [
                Frame(pixels: pattern(24, 16, channels: 4, seed: 5), width: 24, height: 16),
                Frame(pixels: pattern(5, 5, channels: 4, seed: 6), width: 5, height: 5, x: 19, y: 11, blend: 1),
            ], defaultImage: pattern(24, 16, channels: 4, seed: 7))
        let opaque = APNGWriter.file(
            width: 24, height: 16, channels: 3,
            frames: (0..<3).map {
                Frame(pixels: pattern(24, 16, channels: 3, seed: $0), width: 24, height: 16, blend: 1)
            }, loops: 1)
        return [
            CoderSample(name: "apng-dispose-blend.png", data: mixed, format: .png, size: size, frameCount: 5, loopCount: 2),
            CoderSample(name: "apng-default-image.png", data: withDefault, format: .png, size: size, frameCount: 2, loopCount: 0),
            CoderSample(name: "apng-opaque.png", data: opaque, format: .png, size: size, frameCount: 3, loopCount: 1),
        ]
    }()

    @Test("PNGCoder (animated APNG)", arguments: apng)
    func apngCoder(_ sample: CoderSample) async {
        await CoderConformance.check(PNGCoder(), samples: [sample], options: Self.writingProfilesAndMetadata)
    }

    @Test("JPEGCoder (still, progressive; lossy round trips)", arguments: jpeg)
    func jpegCoder(_ row: Corpus.Row) async throws {
        await CoderConformance.check(JPEGCoder(), samples: [try sample(row, .jpeg)], options: Self.writingProfilesAndMetadata)
    }

    @Test("WebPCoder (still and animated, progressive)", arguments: webp)
    func webpCoder(_ row: Corpus.Row) async throws {
        await CoderConformance.check(WebPCoder(), samples: [try sample(row, .webp)], options: Self.writingProfilesAndMetadata)
    }

    @Test("GIFCoder (still and animated)", arguments: gif)
    func gifCoder(_ row: Corpus.Row) async throws {
        var options = CoderConformance.Options()
        options.colorProfile = ColorFixtures.displayP3Profile()
        await CoderConformance.check(GIFCoder(), samples: [try sample(row, .gif)], options: options)
    }

    /// AVIFs made by avifenc in the test run (8-bit 4:2:0, 10-bit with alpha, monochrome, a
    /// sequence), each checked against avifdec's first frame.
    static let avif = [AVIFFixtures.rgb8, AVIFFixtures.alpha10, AVIFFixtures.gray, AVIFFixtures.animated]

    @Test("AVIFCoder (still and animated)", .enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools), arguments: avif)
    func avifCoder(_ fixture: AVIFFixtures.Sample) async throws {
        let reference = try AVIFFixtures.reference(fixture)
        let sample = CoderSample(
            name: fixture.name, data: try fixture.data(), format: .avif, size: ImageSize(width: fixture.width, height: fixture.height),
            frameCount: fixture.frames, loopCount: fixture.frames > 1 ? 0 : nil,
            reference: try PixelBuffer(width: reference.width, height: reference.height, format: .rgba8, bytes: reference.rgba), tolerance: 1)
        await CoderConformance.check(AVIFCoder(), samples: [sample], options: Self.writingProfilesAndMetadata)
    }

    /// HEICs made by heif-enc (opaque and with alpha), each checked against heif-convert. The
    /// coder decodes only, so the kit's round trips do not apply.
    @Test("HEIFCoder (still, decode only)", .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools), arguments: HEIFFixtures.stills)
    func heifCoder(_ fixture: HEIFFixtures.Sample) async throws {
        let reference = try HEIFFixtures.reference(fixture)
        let sample = CoderSample(
            name: fixture.name, data: try fixture.data(), format: .heic, size: ImageSize(width: fixture.width, height: fixture.height),
            reference: try PixelBuffer(width: reference.width, height: reference.height, format: .rgba8, bytes: reference.rgba), tolerance: 1)
        await CoderConformance.check(HEIFCoder(), samples: [sample])
    }

    /// TIFFs made with netpbm and libtiff's tools (Tests/Fixtures/corpus/tiff/make-fixtures.sh),
    /// each checked against tifftopnm's first page. Decode only.
    @Test("TIFFCoder (still and multi-page, decode only)", arguments: tiff)
    func tiffCoder(_ row: Corpus.Row) async throws {
        await CoderConformance.check(TIFFCoder(), samples: [try Self.netpbmSample(row, format: .tiff)])
    }

    /// BMPs and icons made with netpbm, checked against bmptopnm and winicontopam (the largest
    /// entry, an icon's first frame). PNG entries go through a manager holding the PNG coder.
    @Test("BMPCoder (BMP still, ICO entries as frames, decode only)", arguments: bmp)
    func bmpCoder(_ row: Corpus.Row) async throws {
        let coders = ImageCodersManager()
        coders.add(PNGCoder())
        let format: ImageFormat = row.file.hasSuffix(".ico") ? .ico : .bmp
        await CoderConformance.check(BMPCoder(coders: coders), samples: [try Self.netpbmSample(row, format: format)])
    }

    /// A sample whose reference is the netpbm reader's image of the first frame (for an icon, its
    /// largest entry), in `<suite>/reference/<name>.pam`.
    static func netpbmSample(_ row: Corpus.Row, format: ImageFormat) throws -> CoderSample {
        let name = (row.file as NSString).deletingPathExtension
        let url = Corpus.root.appendingPathComponent(row.suite).appendingPathComponent("reference/\(name).pam")
        guard let images = ReferencePAM.read(url) else { throw CorpusSampleError.unreadableReference(url.path) }
        let largest = images.max { ($0.size.pixelCount ?? 0) < ($1.size.pixelCount ?? 0) } ?? images[0]
        return CoderSample(
            name: row.testDescription, data: try Data(contentsOf: row.url), format: format,
            size: ImageSize(width: row.width, height: row.height), frameCount: row.frames,
            loopCount: row.frames > 1 ? 0 : nil, reference: (format == .ico ? largest : images[0]).converted(to: .rgba8), tolerance: 1)
    }
}
