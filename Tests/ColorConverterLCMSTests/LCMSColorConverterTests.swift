import ColorConverterLCMS
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("Colour management on lcms2", .dedicatedThreads)
struct LCMSColorConverterTests {
    let converters = ImageColorConvertersManager(converters: [LCMSColorConverter()])
    let p3 = ColorFixtures.displayP3Profile()

    @Test("A Display P3 patch (67, 151, 42) decodes to sRGB (0, 153, 0) within 3", arguments: [ImageFormat.jpeg, .png, .webp])
    func displayP3DecodesToSRGB(format: ImageFormat) throws {
        let data = try TaggedImages.tagged(format, ColorFixtures.displayP3Patch, profile: p3)
        let image = try TaggedImages.decode(data, converters: converters)
        let pixel = TaggedImages.centre(image)
        #expect(TaggedImages.isClose(pixel, ColorFixtures.displayP3PatchInSRGB), "got \(pixel)")
        #expect(image.metadata.colorProfile == .sRGB)
        #expect(image.metadata.warnings.isEmpty)
        #expect(image.pixelFormat == .rgb8)
    }

    @Test("Keeping the source profile leaves the stored pixels and the profile bytes", arguments: [ImageFormat.jpeg, .png, .webp])
    func keepSourceProfile(format: ImageFormat) throws {
        let data = try TaggedImages.tagged(format, ColorFixtures.displayP3Patch, profile: p3)
        let image = try TaggedImages.decode(data, options: ImageDecodeOptions(colorHandling: .keepSourceProfile), converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.displayP3Patch))
        #expect(image.metadata.colorProfile == .icc(p3))
    }

    @Test("Without a registered converter the image keeps its pixels and profile, with no warning")
    func noConverterRegistered() throws {
        let data = try TaggedImages.jpeg(ColorFixtures.displayP3Patch, profile: p3)
        let image = try TaggedImages.decode(data, converters: ImageColorConvertersManager())
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.displayP3Patch))
        #expect(image.metadata.colorProfile == .icc(p3))
        #expect(image.metadata.warnings.isEmpty)
    }

    @Test("Pixels stored with red and green swapped come out right only through their profile", arguments: [ImageFormat.jpeg, .png])
    func channelSwappedProfile(format: ImageFormat) throws {
        let meant: [UInt8] = [200, 60, 30]
        let data = try TaggedImages.tagged(format, [meant[1], meant[0], meant[2]], profile: ColorFixtures.swappedRedGreenProfile())
        let converted = try TaggedImages.decode(data, converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(converted), meant), "got \(TaggedImages.centre(converted))")
        let kept = try TaggedImages.decode(data, options: ImageDecodeOptions(colorHandling: .keepSourceProfile), converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(kept), [meant[1], meant[0], meant[2]]))
    }

    @Test("A gray image with a linear gray profile stays gray, in sRGB's curve (128 → 188)", arguments: [ImageFormat.jpeg, .png])
    func grayProfile(format: ImageFormat) throws {
        let data = try TaggedImages.tagged(format, [128], profile: ColorFixtures.linearGrayProfile())
        let image = try TaggedImages.decode(data, converters: converters)
        #expect(image.pixelFormat == .gray8)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), [188], within: 2), "got \(TaggedImages.centre(image))")
        #expect(image.metadata.warnings.isEmpty)
    }

    @Test("A PNG gAMA of 1.0 (linear) is converted; a gAMA of 1/2.2 is taken as sRGB and left alone")
    func pngGamma() throws {
        let plain = try plainPNG([128])
        let linear = try TaggedImages.decode(ColorFixtures.png(plain, gamma: 1.0), converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(linear), [188], within: 2), "got \(TaggedImages.centre(linear))")
        let display = try TaggedImages.decode(ColorFixtures.png(plain, gamma: 1 / 2.2), converters: converters)
        #expect(TaggedImages.centre(display) == [128])
    }

    private func plainPNG(_ pixel: [UInt8]) throws -> Data {
        try TaggedImages.coders.encode(try TaggedImages.patch(pixel), as: .png, options: ImageEncodeOptions())
    }

    @Test("A broken profile gives the image as decoded plus a colorProfileIgnored warning, never an error")
    func brokenProfile() throws {
        let data = try TaggedImages.jpeg(ColorFixtures.displayP3Patch, profile: ColorFixtures.brokenProfile())
        let image = try TaggedImages.decode(data, converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.displayP3Patch))
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored])
        #expect(image.metadata.warnings.first?.message.contains("colour profile not applied") == true)
    }

    @Test("A gray profile on RGB pixels is refused with a warning that says so")
    func mismatchedProfile() throws {
        let data = try TaggedImages.jpeg(ColorFixtures.displayP3Patch, profile: ColorFixtures.linearGrayProfile())
        let image = try TaggedImages.decode(data, converters: converters)
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored])
        #expect(image.metadata.warnings.first?.message.contains("gray profile does not describe rgb8 pixels") == true)
    }

    @Test("A JPEG profile split over many APP2 segments is put together; a missing segment drops it with a warning")
    func jpegSegments() throws {
        let split = try TaggedImages.jpeg(ColorFixtures.displayP3Patch, profile: p3, segmentBytes: 100)
        let image = try TaggedImages.decode(split, options: ImageDecodeOptions(colorHandling: .keepSourceProfile), converters: converters)
        #expect(image.metadata.colorProfile == .icc(p3))

        let plain = try TaggedImages.jpeg(ColorFixtures.displayP3Patch, profile: Data())
        let gap = ColorFixtures.jpeg(plain, embedding: p3, segmentBytes: 100) { number, count in (number == 2 ? count + 1 : number, count) }
        let broken = try TaggedImages.decode(gap, converters: converters)
        #expect(broken.metadata.colorProfile == nil)
        #expect(broken.metadata.warnings.map(\.kind) == [.colorProfileIgnored])
        #expect(TaggedImages.isClose(TaggedImages.centre(broken), ColorFixtures.displayP3Patch))
    }

    @Test("A profile over maxColorProfileBytes is dropped with a warning naming the setting", arguments: [ImageFormat.jpeg, .png, .webp])
    func profileSizeLimit(format: ImageFormat) throws {
        let data = try TaggedImages.tagged(format, ColorFixtures.displayP3Patch, profile: p3)
        let image = try TaggedImages.decode(data, options: ImageDecodeOptions(maxColorProfileBytes: 100), converters: converters)
        #expect(image.metadata.colorProfile == nil)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.displayP3Patch))
        let warning = try #require(image.metadata.warnings.first)
        #expect(warning.kind == .colorProfileIgnored)
        #expect(warning.message.contains("ImageDecodeOptions.maxColorProfileBytes"))
    }

    @Test("Relative colorimetric is accepted and keeps an in-gamut colour")
    func relativeColorimetric() throws {
        let data = try TaggedImages.png(ColorFixtures.displayP3Patch, profile: p3)
        let options = ImageDecodeOptions(colorHandling: .convertToSRGB(.relativeColorimetric))
        let image = try TaggedImages.decode(data, options: options, converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.displayP3PatchInSRGB))
    }

    @Test("Alpha is copied untouched while the colour is converted")
    func alphaKept() throws {
        let converter = LCMSColorConverter()
        let pixels = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [67, 151, 42, 77, 67, 151, 42, 255])
        let converted = try converter.convertToSRGB(pixels, from: .icc(p3), intent: .perceptual)
        #expect(converted.bytes[3] == 77 && converted.bytes[7] == 255)
        #expect(TaggedImages.isClose(Array(converted.bytes[0..<3]), ColorFixtures.displayP3PatchInSRGB))
    }

    @Test("The profile's description is its own name")
    func profileDescription() {
        #expect(LCMSColorConverter().profileDescription(.icc(p3)) == "Display P3")
        #expect(LCMSColorConverter().profileDescription(.icc(ColorFixtures.brokenProfile())) == nil)
        #expect(LCMSColorConverter().profileDescription(.sRGB) == nil)
    }

    @Test("Many tasks converting with one converter get identical pixels")
    func concurrentConversions() async throws {
        let converter = LCMSColorConverter()
        let patch = try TaggedImages.patch(ColorFixtures.displayP3Patch).firstFrame
        let profiles = [p3, ColorFixtures.swappedRedGreenProfile()]
        let expected = try profiles.map { try converter.convertToSRGB(patch, from: .icc($0), intent: .perceptual).bytes }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let which = index % 2
                    return try converter.convertToSRGB(patch, from: .icc(profiles[which]), intent: .perceptual).bytes == expected[which]
                }
            }
            for try await same in group { #expect(same) }
        }
    }
}

@Suite("Encoders and colour profiles", .dedicatedThreads)
struct ColorProfileEncodingTests {
    let converters = ImageColorConvertersManager(converters: [LCMSColorConverter()])
    let p3 = ColorFixtures.displayP3Profile()

    @Test("An image that keeps its profile is written with it, byte for byte", arguments: [ImageFormat.jpeg, .png, .webp])
    func keptProfileRoundTrips(format: ImageFormat) throws {
        let source = try TaggedImages.tagged(format, ColorFixtures.displayP3Patch, profile: p3)
        let kept = try TaggedImages.decode(source, options: ImageDecodeOptions(colorHandling: .keepSourceProfile), converters: converters)
        let written = try TaggedImages.coders.encode(kept, as: format, options: ImageEncodeOptions(quality: 1, lossless: true))
        let reread = try TaggedImages.coders.decode(written, options: ImageDecodeOptions())
        #expect(reread.metadata.colorProfile == .icc(p3))
        #expect(reread.metadata.warnings.isEmpty)
        // Converting the re-read file still gives the sRGB colour: the profile went with the pixels.
        let converted = try TaggedImages.decode(written, converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(converted), ColorFixtures.displayP3PatchInSRGB))
    }

    @Test("A converted image is written without a profile", arguments: [ImageFormat.jpeg, .png, .webp])
    func convertedImageIsUntagged(format: ImageFormat) throws {
        let source = try TaggedImages.tagged(format, ColorFixtures.displayP3Patch, profile: p3)
        let converted = try TaggedImages.decode(source, converters: converters)
        let written = try TaggedImages.coders.encode(converted, as: format, options: ImageEncodeOptions(quality: 1, lossless: true))
        #expect(try TaggedImages.coders.decode(written, options: ImageDecodeOptions()).metadata.colorProfile == nil)
    }

    @Test("A profile that does not describe the pixels is never written (a gray profile on colour)")
    func mismatchedProfileNotWritten() throws {
        var image = try TaggedImages.patch(ColorFixtures.displayP3Patch)
        image.metadata.colorProfile = .icc(ColorFixtures.linearGrayProfile())
        for format in [ImageFormat.jpeg, .png, .webp] {
            let written = try TaggedImages.coders.encode(image, as: format, options: ImageEncodeOptions())
            #expect(try TaggedImages.coders.decode(written, options: ImageDecodeOptions()).metadata.colorProfile == nil)
        }
    }

    @Test("A gray image keeps its gray profile in PNG and JPEG")
    func grayProfileWritten() throws {
        let gray = ColorFixtures.linearGrayProfile()
        var image = try TaggedImages.patch([128])
        image.metadata.colorProfile = .icc(gray)
        for format in [ImageFormat.jpeg, .png] {
            let written = try TaggedImages.coders.encode(image, as: format, options: ImageEncodeOptions())
            let reread = try TaggedImages.coders.decode(written, options: ImageDecodeOptions())
            #expect(reread.metadata.colorProfile == .icc(gray) && reread.pixelFormat == .gray8)
        }
    }
}
