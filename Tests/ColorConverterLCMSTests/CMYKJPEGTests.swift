import CJPEGShim
import CodersJPEG
import ColorConverterLCMS
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("CMYK JPEGs through their profile", .dedicatedThreads)
struct CMYKJPEGTests {
    let converters = ImageColorConvertersManager(converters: [LCMSColorConverter()])
    let profile = ColorFixtures.cmykProfile()
    /// Ink values (0 none, 255 full): a muted red on warm paper.
    let ink: [UInt8] = [20, 200, 150, 30]

    @Test("A CMYK JPEG with a CMYK profile comes out as lcms2's sRGB of its inks, not the naive arithmetic")
    func convertedThroughProfile() throws {
        let image = try decode(try Self.cmykJPEG(ink: ink, adobe: false, profile: profile), converters: converters)
        let expected = ColorFixtures.lcmsSRGB(fromCMYK: ink, profile: profile)
        let pixel = TaggedImages.centre(image)
        #expect(TaggedImages.isClose(pixel, expected, within: 2), "got \(pixel), lcms2 gives \(expected)")
        #expect(!TaggedImages.isClose(pixel, Self.naive(ink), within: 10), "got the naive \(pixel)")
        #expect(image.metadata.colorProfile == .sRGB)
        #expect(image.metadata.warnings.isEmpty)
    }

    @Test("Adobe's inverted CMYK gives the same colour as plain CMYK through the profile")
    func adobeInvertedMatchesPlain() throws {
        let plain = try decode(try Self.cmykJPEG(ink: ink, adobe: false, profile: profile), converters: converters)
        let adobe = try decode(try Self.cmykJPEG(ink: ink, adobe: true, profile: profile), converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(adobe), TaggedImages.centre(plain), within: 1))
        #expect(TaggedImages.isClose(TaggedImages.centre(adobe), ColorFixtures.lcmsSRGB(fromCMYK: ink, profile: profile), within: 2))
    }

    @Test(
        "Without a converter, or keeping the source profile, CMYK is converted naively with no warning and the profile is never written on RGB",
        arguments: [false, true])
    func naiveWithoutConversion(keepSourceProfile: Bool) throws {
        let data = try Self.cmykJPEG(ink: ink, adobe: true, profile: profile)
        let image =
            keepSourceProfile
            ? try decode(data, options: ImageDecodeOptions(colorHandling: .keepSourceProfile), converters: converters)
            : try decode(data, converters: ImageColorConvertersManager())
        #expect(TaggedImages.isClose(TaggedImages.centre(image), Self.naive(ink), within: 2))
        #expect(image.metadata.warnings.isEmpty)
        #expect(image.metadata.colorProfile == .icc(profile))
        let written = try JPEGCoder().encode(image, as: .jpeg, options: ImageEncodeOptions())
        #expect(try JPEGCoder().decode(written, options: ImageDecodeOptions(colorHandling: .keepSourceProfile)).metadata.colorProfile == nil)
    }

    @Test("A CMYK profile lcms2 cannot read leaves the naive conversion and one colorProfileIgnored warning")
    func unreadableCMYKProfile() throws {
        // The header (which says CMYK) without its tags.
        var broken = profile.prefix(200)
        broken.replaceSubrange(broken.startIndex..<broken.startIndex + 4, with: [0, 0, 0, 200])
        let image = try decode(try Self.cmykJPEG(ink: ink, adobe: false, profile: Data(broken)), converters: converters)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), Self.naive(ink), within: 2))
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored])
        #expect(image.metadata.colorProfile == nil)
    }

    @Test("A CMYK thumbnail is converted through the profile too")
    func thumbnail() throws {
        let data = try Self.cmykJPEG(ink: ink, adobe: true, profile: profile, width: 256, height: 128)
        let image = try decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 32, height: 32)), converters: converters)
        #expect(image.pixelSize.width == 32)
        #expect(TaggedImages.isClose(TaggedImages.centre(image), ColorFixtures.lcmsSRGB(fromCMYK: ink, profile: profile), within: 2))
    }

    @Test(
        "A CMYK JPEG read row by row gives the full decode's pixels, profile and warnings",
        arguments: ["through its profile", "naively, no converter", "naively, profile unreadable"])
    func rowsMatchFullDecode(_ conversion: String) throws {
        var tagged = profile
        if conversion == "naively, profile unreadable" {
            tagged = Data(profile.prefix(200))
            tagged.replaceSubrange(tagged.startIndex..<tagged.startIndex + 4, with: [0, 0, 0, 200])
        }
        let data = try Self.cmykJPEG(ink: ink, adobe: true, profile: tagged, width: 40, height: 37)
        let coder = JPEGCoder(colorConverters: conversion == "naively, no converter" ? ImageColorConvertersManager() : converters)
        let whole = try coder.decode(data, options: ImageDecodeOptions())
        let streamed = try coder.withRowSource(of: data, mapping: nil, options: ImageDecodeOptions()) {
            source -> (PixelBuffer, ImageColorProfile?, [String]) in
            var bytes: [UInt8] = []
            while let strip = try source.nextRows(max: 16) { bytes += strip.bytes }
            let pixels = try PixelBuffer(width: source.size.width, height: source.size.height, format: source.pixelFormat, bytes: bytes)
            return (pixels, source.colorProfile, source.warnings.map(\.message))
        }
        let (pixels, colorProfile, warnings) = try #require(streamed)
        #expect(pixels == whole.firstFrame)
        #expect(colorProfile == whole.metadata.colorProfile)
        #expect(warnings == whole.metadata.warnings.map(\.message))
    }

    // MARK: Helpers

    private func decode(
        _ data: Data, options: ImageDecodeOptions = ImageDecodeOptions(),
        converters: ImageColorConvertersManager
    ) throws -> Image {
        let coders = ImageCodersManager(coders: [JPEGCoder(colorConverters: converters)])
        return try coders.decodeImage(data, options: options, colorConverters: converters)
    }

    /// The decoder's naive CMYK: each channel is (255 - ink) x (255 - black) / 255.
    static func naive(_ ink: [UInt8]) -> [UInt8] {
        let white = 255 - Int(ink[3])
        return ink.prefix(3).map { UInt8(((255 - Int($0)) * white + 127) / 255) }
    }

    /// A flat CMYK JPEG of `ink` tagged with `profile`. libjpeg writes CMYK with Adobe's APP14
    /// marker, which decoders read as inverted: the `adobe` file stores 255 - ink with it, the
    /// plain one stores the ink and has the marker taken out.
    static func cmykJPEG(ink: [UInt8], adobe: Bool, profile: Data, width: Int = 24, height: Int = 16) throws -> Data {
        let stored = adobe ? ink.map { 255 - $0 } : ink
        let pixels = Array((0..<width * height).map { _ in stored }.joined())
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        guard ijpeg_encode(pixels, UInt32(width), UInt32(height), 4, 100, 0, 1, &out, &size, nil, nil, &message, message.count) == 1, let out else {
            throw ImagePipeError.badImageData(reason: "test CMYK JPEG: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { ijpeg_free(out) }
        var jpeg = Data(bytes: out, count: size)
        if !adobe { jpeg = withoutAdobeMarker(jpeg) }
        return ColorFixtures.jpeg(jpeg, embedding: profile)
    }

    /// `jpeg` without its APP14 segments (markers before the first scan only).
    static func withoutAdobeMarker(_ jpeg: Data) -> Data {
        let bytes = [UInt8](jpeg)
        var out = Array(bytes.prefix(2))
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] != 0xDA {
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if bytes[index + 1] != 0xEE { out += bytes[index..<index + 2 + length] }
            index += 2 + length
        }
        return Data(out + bytes[index...])
    }
}
