import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// A coder that tags `TestCoder`'s images with a profile named by the image's first pixel's red
/// value: 1 swaps, 2 is broken, anything else is sRGB.
private struct TaggingCoder: ImageCoder {
    let base = TestCoder()

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        var image = try base.decode(data, options: options)
        switch image.firstFrame.bytes[0] {
        case 1: image.metadata.colorProfile = .icc(SwappingConverter.swap)
        case 2: image.metadata.colorProfile = .icc(SwappingConverter.broken)
        default: image.metadata.colorProfile = .sRGB
        }
        return image
    }

    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { Data() }
}

/// "Converts" by swapping the first two channels, and records the sizes it was handed.
private final class SwappingConverter: ImageColorConverter {
    static let swap = Data("swap".utf8)
    static let broken = Data("broken".utf8)
    let sizes = Mutex<[ImageSize]>([])

    func canConvert(from profile: ImageColorProfile) -> Bool { profile.iccData != nil }

    func convertToSRGB(_ pixels: PixelBuffer, from profile: ImageColorProfile, intent: ImageRenderingIntent) throws -> PixelBuffer {
        sizes.withLock { $0.append(pixels.size) }
        guard profile == .icc(Self.swap) else { throw ImageColorConversionError(reason: "no tags") }
        var bytes = pixels.bytes
        for i in stride(from: 0, to: bytes.count, by: pixels.format.bytesPerPixel) { bytes.swapAt(i, i + 1) }
        return try PixelBuffer(width: pixels.width, height: pixels.height, format: pixels.format, bytes: bytes)
    }

    func profileDescription(_ profile: ImageColorProfile) -> String? { nil }
}

@Suite("Colour handling in the decode step")
struct ImageColorHandlingTests {
    private let converter = SwappingConverter()
    private let coders = ImageCodersManager(coders: [TaggingCoder()])
    private var converters: ImageColorConvertersManager { ImageColorConvertersManager(converters: [converter]) }

    private func sample(red: UInt8, width: Int = 40, height: Int = 20) -> Data {
        TestCoder.sample(width: width, height: height, color: ImageColor(red: red, green: 200, blue: 30))
    }

    @Test("A tagged image is converted and then says sRGB")
    func converts() throws {
        let image = try coders.decodeImage(sample(red: 1), options: ImageDecodeOptions(), colorConverters: converters)
        #expect(Array(image.firstFrame.bytes.prefix(3)) == [200, 1, 30])
        #expect(image.metadata.colorProfile == .sRGB)
    }

    @Test("A thumbnail is converted at its reduced size, once")
    func convertsAfterShrinking() throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 10, height: 10))
        _ = try coders.decodeImage(sample(red: 1), options: options, colorConverters: converters)
        #expect(converter.sizes.withLock { $0 } == [ImageSize(width: 10, height: 5)])
    }

    @Test("keepSourceProfile leaves pixels and profile and never calls the converter")
    func keepsSourceProfile() throws {
        let options = ImageDecodeOptions(colorHandling: .keepSourceProfile)
        let image = try coders.decodeImage(sample(red: 1), options: options, colorConverters: converters)
        #expect(Array(image.firstFrame.bytes.prefix(3)) == [1, 200, 30])
        #expect(image.metadata.colorProfile == .icc(SwappingConverter.swap))
        #expect(converter.sizes.withLock { $0 }.isEmpty)
    }

    @Test("sRGB images never reach the converter")
    func sRGBSkipped() throws {
        _ = try coders.decodeImage(sample(red: 9), options: ImageDecodeOptions(), colorConverters: converters)
        #expect(converter.sizes.withLock { $0 }.isEmpty)
    }

    @Test("A profile the converter refuses gives the decoded image plus a colorProfileIgnored warning")
    func refusedProfile() throws {
        let image = try coders.decodeImage(sample(red: 2), options: ImageDecodeOptions(), colorConverters: converters)
        #expect(Array(image.firstFrame.bytes.prefix(3)) == [2, 200, 30])
        #expect(image.metadata.colorProfile == .icc(SwappingConverter.broken))
        #expect(image.metadata.warnings.map(\.kind) == [.colorProfileIgnored])
        #expect(image.metadata.warnings.first?.message.hasSuffix("no tags") == true)
    }

    @Test("Transforms keep the colour profile")
    func transformsKeepProfile() throws {
        let options = ImageDecodeOptions(colorHandling: .keepSourceProfile)
        let image = try coders.decodeImage(sample(red: 1), options: options, colorConverters: converters)
        let resized = try ResizingTransformer(size: ImageSize(width: 8, height: 8)).apply(to: image)
        #expect(resized.metadata.colorProfile == .icc(SwappingConverter.swap))
    }

    @Test("The context's colorHandling reaches the decode options and the final cache key")
    func contextKey() {
        var context = ImageContext()
        context[.colorHandling] = .keepSourceProfile
        #expect(ImageDecodeOptions(options: [], context: context).colorHandling == .keepSourceProfile)
        let url = URL(string: "https://example.com/a.jpg")!
        let keys = ImageCacheKeys(url: url, context: context, settings: ImageManager.SettingsSnapshot(ImageManager.Settings()))
        #expect(keys.final == "https://example.com/a-ColorHandling(keepSourceProfile).jpg")
        #expect(keys.original == "https://example.com/a.jpg")
        let plain = ImageCacheKeys(url: url, context: ImageContext(), settings: ImageManager.SettingsSnapshot(ImageManager.Settings()))
        #expect(plain.final == plain.original)
    }

    @Test("gAMA of 1/2.2 without primaries, or with sRGB's, counts as sRGB; other gammas do not")
    func calibratedSRGB() {
        #expect(ImageColorProfile.calibrated(gamma: 0.45455, chromaticities: nil).isSRGB)
        #expect(ImageColorProfile.calibrated(gamma: 0.45455, chromaticities: .sRGB).isSRGB)
        #expect(!ImageColorProfile.calibrated(gamma: 1.0, chromaticities: nil).isSRGB)
        var wide = ImageChromaticities.sRGB
        wide.greenY = 0.69
        #expect(!ImageColorProfile.calibrated(gamma: 0.45455, chromaticities: wide).isSRGB)
    }

    @Test("A load that keeps the source profile is stored under its own key; the original key gets only the bytes")
    func managerKeepsKeysApart() async throws {
        let f = ManagerFixture()
        let url = URL(string: "test://img/photo.timg")!
        let data = f.serve(url.absoluteString)
        var context = ImageContext()
        context[.colorHandling] = .keepSourceProfile
        context[.originalStoreCacheType] = .all
        _ = try await f.manager.loadImage(with: url, context: context)
        try #require(await eventually { f.cache.stores.count == 2 })
        let original = try #require(f.cache.stores.first { $0.key == url.absoluteString })
        #expect(!original.hadImage && original.hadData)
        #expect(f.cache.stores.contains { $0.key == "test://img/photo-ColorHandling(keepSourceProfile).timg" && $0.hadImage })
        #expect(f.cache.diskData(url.absoluteString) == data)
    }
}
