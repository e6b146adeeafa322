import CPNGShim
import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersPNG

@Suite("PNG encoding", .dedicatedThreads)
struct PNGEncoderTests {
    let coder = PNGCoder()

    @Test(
        "Encoding and decoding gives back the same pixels at every compression level",
        arguments: [PixelFormat.rgba8, .rgb8, .gray8, .grayAlpha8], [0, 1, 6, 9])
    func roundTrip(format: PixelFormat, level: Int) throws {
        let source = try PNGTestImages.gradient(width: 61, height: 37, format: format)
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionLevel] = level
        let data = try coder.encode(Image(source), as: .png, options: options)
        #expect(ImageFormat.detect(in: data) == .png)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == format)
        #expect(decoded.firstFrame == source)
    }

    @Test("Higher compression levels give smaller files")
    func levelsShrinkFiles() throws {
        let source = try PNGTestImages.gradient(width: 200, height: 200, format: .rgb8)
        func size(_ level: Int) throws -> Int {
            var options = ImageEncodeOptions()
            options.extras[.pngCompressionLevel] = level
            return try coder.encode(Image(source), as: .png, options: options).count
        }
        #expect(try size(9) < size(0))
        #expect(try size(0) > 200 * 200 * 3)
    }

    @Test("An opaque RGBA image is written without alpha, a gray RGB one as gray")
    func writesNarrowestColourType() throws {
        let opaque = try PixelBuffer(width: 3, height: 2, format: .rgba8, fill: ImageColor(red: 10, green: 20, blue: 30))
        #expect(
            try coder.decode(
                coder.encode(Image(opaque), as: .png, options: ImageEncodeOptions()),
                options: ImageDecodeOptions()
            ).pixelFormat == .rgb8)
        let gray = try PixelBuffer(width: 3, height: 2, format: .rgb8, fill: ImageColor(red: 90, green: 90, blue: 90))
        let decoded = try coder.decode(coder.encode(Image(gray), as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == .gray8)
        #expect(decoded.firstFrame.color(x: 2, y: 1) == ImageColor(red: 90, green: 90, blue: 90))
    }

    @Test("maxPixelSize scales the image down into the box before writing")
    func maxPixelSizeScalesDown() throws {
        let source = try PNGTestImages.gradient(width: 400, height: 100, format: .rgb8)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 100, height: 100)))
        #expect(try coder.decode(data, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 100, height: 25))
    }

    @Test("Pixels are written upright: an orientation on the image is applied first")
    func appliesOrientation() throws {
        let source = try PNGTestImages.gradient(width: 40, height: 10, format: .rgb8)
        let data = try coder.encode(Image(source, orientation: .right), as: .png, options: ImageEncodeOptions())
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == ImageSize(width: 10, height: 40))
        #expect(decoded.firstFrame == source.applying(.right))
    }

    @Test(
        "Every colour type comes back exactly at odd sizes, one pixel wide included",
        arguments: [PixelFormat.rgba8, .rgb8, .gray8, .grayAlpha8],
        [(1, 1), (1, 9), (2, 3), (5, 4), (33, 17), (127, 3)])
    func roundTripSizes(format: PixelFormat, size: (width: Int, height: Int)) throws {
        let source = try PNGTestImages.photo(width: size.width, height: size.height, format: format)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions())
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == source.size)
        #expect(PNGTestImages.maxDifference(decoded.firstFrame, source) == 0)
    }

    @Test(
        "The file is well formed to a reader other than libpng: signature, IHDR, CRCs, IEND, pixels",
        arguments: [(PixelFormat.gray8, UInt8(0)), (.grayAlpha8, 4), (.rgb8, 2), (.rgba8, 6)], [1, 6, 9])
    func fileStructure(format: (PixelFormat, colorType: UInt8), level: Int) throws {
        let (width, height) = (71, 45)
        let source = try PNGTestImages.photo(width: width, height: height, format: format.0)
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionLevel] = level
        let data = try coder.encode(Image(source), as: .png, options: options)

        let file = PNGFileStructure(data)
        #expect(file.hasSignature)
        #expect(file.trailingBytes == 0)
        for chunk in file.chunks { #expect(chunk.storedCRC == chunk.computedCRC, "CRC of \(chunk.type)") }
        let header = try #require(file.header)
        #expect(header.width == width && header.height == height)
        #expect(header.fields == [8, format.colorType, 0, 0, 0])
        let types = file.chunks.map(\.type)
        #expect(types.first == "IHDR" && types.last == "IEND" && file.chunks.last?.payload.isEmpty == true)
        #expect(types.dropFirst().dropLast().allSatisfy { $0 == "IDAT" } && types.count >= 3)
        let filters = try #require(file.rowFilters(rowBytes: width * format.0.channelCount, height: height))
        #expect(filters.allSatisfy { $0 <= 4 })

        // TestSupport's reader inflates with zlib and unfilters on its own, so this does not lean on libpng.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pngenc-\(UUID().uuidString).png")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reference = try #require(ReferencePNG.read(url))
        #expect(reference.width == width && reference.height == height)
        #expect(reference.rgba == source.converted(to: .rgba8).bytes)
    }

    @Test("Rows of a photo are filtered adaptively, and level 0 stores them unfiltered and larger")
    func levelZeroStoresUnfiltered() throws {
        let (width, height) = (160, 120)
        let source = try PNGTestImages.photo(width: width, height: height, format: .rgb8)
        func encoded(_ level: Int) throws -> Data {
            var options = ImageEncodeOptions()
            options.extras[.pngCompressionLevel] = level
            return try coder.encode(Image(source), as: .png, options: options)
        }
        let stored = try encoded(0), compressed = try encoded(6)
        #expect(stored.count > compressed.count)
        #expect(stored.count > width * height * 3)
        let storedFilters = try #require(PNGFileStructure(stored).rowFilters(rowBytes: width * 3, height: height))
        #expect(storedFilters.allSatisfy { $0 == 0 })
        let adaptiveFilters = try #require(PNGFileStructure(compressed).rowFilters(rowBytes: width * 3, height: height))
        #expect(Set(adaptiveFilters).count > 1)
    }

    @Test("A file whose data outgrows one IDAT is split into 1 MiB IDATs and reads back exactly")
    func splitsLargeDataIntoIDATs() throws {
        let (width, height) = (640, 480)
        var seed: UInt32 = 12345
        let noise = (0..<(width * height * 4)).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        let source = try PixelBuffer(width: width, height: height, format: .rgba8, bytes: noise)
        let data = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions())

        let file = PNGFileStructure(data)
        let idats = file.chunks.filter { $0.type == "IDAT" }
        #expect(idats.count == 2)
        #expect(idats.dropLast().allSatisfy { $0.payload.count == 1 << 20 })
        #expect(file.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
        #expect(file.chunks.last?.type == "IEND" && file.trailingBytes == 0)
        #expect(try coder.decode(data, options: ImageDecodeOptions()).firstFrame == source)
    }

    @Test(
        "An image too large for a PNG or for memory is refused with encodingFailed, not a crash",
        arguments: [(1 << 40, 1 << 40), (0xFFFF_FFFF, 0xFFFF_FFFF), (Int.max, 2)])
    func refusesHugeSizes(size: (width: Int, height: Int)) throws {
        let tiny: [UInt8] = [1, 2, 3, 4]
        let error = #expect(throws: ImagePipeError.self) {
            try tiny.withUnsafeBufferPointer { try PNGEncoder.write($0, width: size.width, height: size.height, channels: 4, level: 6) }
        }
        guard case .encodingFailed? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test(
        "The C writer checks sizes before reading pixels: a huge geometry over a 4-byte buffer fails cleanly",
        arguments: [(UInt32.max, UInt32.max), (0x7FFF_FFFF, 0x7FFF_FFFF), (0x8000_0000, 1), (0, 5)])
    func writerRefusesHugeGeometry(size: (width: UInt32, height: UInt32)) {
        let tiny: [UInt8] = [1, 2, 3, 4]
        var output = ipng_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let status = tiny.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { message in
                ipng_encode(pixels.baseAddress, size.width, size.height, 4, 6, &output, nil, nil, message.baseAddress, message.count)
            }
        }
        defer { ipng_buffer_free(&output) }
        #expect(status == 0)
        #expect(output.bytes == nil && output.size == 0)
        #expect(!message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.isEmpty)
    }

    @Test("Other formats are refused")
    func refusesOtherFormats() throws {
        let source = try PixelBuffer(width: 2, height: 2, format: .rgb8)
        #expect(!coder.canEncode(to: .jpeg))
        #expect(throws: ImagePipeError.self) { try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions()) }
    }
}

@Suite("PNG colour facts", .dedicatedThreads)
struct PNGColorFactsTests {
    let coder = PNGCoder()

    func encoded(_ profile: ImageColorProfile?) throws -> Data {
        var image = Image(try PixelBuffer(width: 4, height: 2, format: .rgb8, bytes: (0..<24).map { UInt8($0 * 10) }))
        image.metadata.colorProfile = profile
        return try coder.encode(image, as: .png, options: ImageEncodeOptions())
    }

    @Test("Kept gAMA and cHRM facts are written back and read as the same facts; sRGB-equivalent ones write nothing")
    func gammaAndChromaticitiesRoundTrip() throws {
        let wide = ImageChromaticities(
            whiteX: 0.3127, whiteY: 0.329, redX: 0.68, redY: 0.32,
            greenX: 0.265, greenY: 0.69, blueX: 0.15, blueY: 0.06)
        for profile in [ImageColorProfile.calibrated(gamma: 1.0, chromaticities: nil), .calibrated(gamma: 0.5, chromaticities: wide)] {
            let back = try coder.decode(try encoded(profile), options: ImageDecodeOptions())
            #expect(back.metadata.colorProfile == profile)
        }
        let untagged = try encoded(nil)
        for profile in [ImageColorProfile.sRGB, .calibrated(gamma: 0.45455, chromaticities: .sRGB)] {
            #expect(try encoded(profile) == untagged)
        }
    }
}
