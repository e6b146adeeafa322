import CodersGIF
import CodersJPEG
import CodersPNG
import CodersWebP
import Foundation
import TestSupport
import Testing

@testable import PipelineCore
@testable import imagepipe

@Suite("imagepipe output bytes")
struct ImageOutputTests {
    static let coders = ImageCodersManager(coders: [PNGCoder(), JPEGCoder(), WebPCoder(), GIFCoder()])

    /// What `convert` writes for `source` in its own format: the source's bytes or an encode.
    func written(_ source: Data, as format: ImageFormat, handling: ImageMetadataHandling = .default, maxMetadataBytes: Int? = nil) throws -> Data {
        var options = ImageDecodeOptions(metadataHandling: handling)
        if let maxMetadataBytes { options.maxMetadataBytes = maxMetadataBytes }
        let image = try Self.coders.decodeImage(source, options: options, colorConverters: ImageColorConvertersManager())
        return try ImageOutput.encode(image, originalData: source, as: format, options: ImageEncodeOptions(), coders: Self.coders)
    }

    /// Upright and untransformed pixels, so only the metadata decides between copy and encode.
    static func pixels(_ format: PixelFormat = .rgb8) throws -> PixelBuffer {
        try PixelBuffer(width: 8, height: 4, format: format, bytes: (0..<8 * 4 * format.bytesPerPixel).map { UInt8($0 * 3 & 0xFF) })
    }

    static func plain(_ format: ImageFormat) throws -> Data {
        if format == .gif {
            let frames = try (0..<2).map { _ in ImageFrame(try pixels(.rgba8), duration: 0.1) }
            return try GIFCoder().encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions())
        }
        return try coders.encode(Image(try pixels()), as: format, options: ImageEncodeOptions(lossless: true))
    }

    /// `png` with a chunk whose CRC is wrong, right after IHDR.
    static func insertingDamagedChunk(_ type: String, payload: [UInt8], into png: Data) -> Data {
        var damaged = ColorFixtures.insertPNGChunk(type, payload: payload, into: png)
        damaged[8 + 25 + 8 + payload.count] ^= 0xFF
        return damaged
    }

    /// `webP` (a simple file) as an extended one with an extra top-level chunk after the image.
    static func webP(_ webP: Data, appending fourCC: String, payload: [UInt8]) -> Data {
        let extended = MetadataFixtures.webP(webP, exif: nil, xmp: nil, width: 8, height: 4)
        let body =
            Array(extended.dropFirst(12)) + Array(fourCC.utf8) + ColorFixtures.littleEndian(UInt32(payload.count)) + payload
            + (payload.count % 2 == 1 ? [0] : [])
        return Data(Array("RIFF".utf8) + ColorFixtures.littleEndian(UInt32(4 + body.count)) + Array("WEBP".utf8) + body)
    }

    /// A two-frame animated WebP, its frames different so the encoder keeps both.
    static func animatedWebP() throws -> Data {
        let first = try pixels(.rgba8)
        let second = try PixelBuffer(width: 8, height: 4, format: .rgba8, bytes: first.bytes.map { ~$0 | 0x0F })
        let frames = [ImageFrame(first, duration: 0.1), ImageFrame(second, duration: 0.1)]
        return try WebPCoder().encode(frames: frames, loopCount: 0, as: .webp, options: ImageEncodeOptions(lossless: true))
    }

    /// A two-frame animated WebP whose first ANMF frame carries an extra `fourCC` chunk after its
    /// image data.
    static func animatedWebP(withFrameChunk fourCC: String, payload: [UInt8]) throws -> Data {
        let animated = Array(try animatedWebP())
        let size: (Int) -> Int = { Int(animated[$0]) | Int(animated[$0 + 1]) << 8 | Int(animated[$0 + 2]) << 16 | Int(animated[$0 + 3]) << 24 }
        var offset = 12
        while String(decoding: animated[offset..<offset + 4], as: UTF8.self) != "ANMF" {
            offset += 8 + size(offset + 4) + (size(offset + 4) & 1)
            try #require(offset + 8 <= animated.count, "the encoder wrote no ANMF chunk")
        }
        let frameSize = size(offset + 4)
        let extra = Array(fourCC.utf8) + ColorFixtures.littleEndian(UInt32(payload.count)) + payload + (payload.count % 2 == 1 ? [0] : [])
        let frame = Array(animated[offset + 8..<offset + 8 + frameSize]) + (frameSize % 2 == 1 ? [0] : []) + extra
        let body =
            Array(animated[12..<offset]) + Array("ANMF".utf8) + ColorFixtures.littleEndian(UInt32(frame.count)) + frame
            + Array(animated[(offset + 8 + frameSize + (frameSize & 1))...])
        return Data(Array("RIFF".utf8) + ColorFixtures.littleEndian(UInt32(4 + body.count)) + Array("WEBP".utf8) + body)
    }

    struct UnreadCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let format: ImageFormat
        let handling: ImageMetadataHandling
        let make: @Sendable () throws -> Data
    }

    static let marker = Array(MetadataFixtures.unreadMarker.utf8)
    static let unreadCases: [UnreadCase] = [
        UnreadCase(testDescription: "JPEG IPTC (APP13)", format: .jpeg, handling: .strip) {
            MetadataFixtures.jpeg(try plain(.jpeg), segments: [(0xED, MetadataFixtures.iptcPayload())])
        },
        UnreadCase(testDescription: "JPEG comment", format: .jpeg, handling: .strip) {
            MetadataFixtures.jpeg(try plain(.jpeg), segments: [(0xFE, marker)])
        },
        UnreadCase(testDescription: "JPEG extended XMP", format: .jpeg, handling: .strip) {
            let header = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0] + Array(repeating: 0x41, count: 32) + [0, 0, 0, 22, 0, 0, 0, 0]
            return MetadataFixtures.jpeg(try plain(.jpeg), segments: [(0xE1, header + marker)])
        },
        UnreadCase(testDescription: "JPEG second EXIF segment under --keep-metadata", format: .jpeg, handling: .keep) {
            // The first EXIF has nothing to remove, so keeping it changes nothing; the second holds GPS.
            let clean = try #require(ExifEditor.removingGPSAndThumbnail(Data(MetadataFixtures.exif(orientation: 1))))
            let exifHeader = Array("Exif".utf8) + [0, 0]
            let second = MetadataFixtures.exif(orientation: 1) + marker
            return MetadataFixtures.jpeg(try plain(.jpeg), segments: [(0xE1, exifHeader + Array(clean)), (0xE1, exifHeader + second)])
        },
        UnreadCase(testDescription: "JPEG with bytes after EOI", format: .jpeg, handling: .strip) {
            try plain(.jpeg) + marker
        },
        UnreadCase(testDescription: "JPEG comment after the scan", format: .jpeg, handling: .strip) {
            let jpeg = try plain(.jpeg)
            return jpeg.dropLast(2) + [0xFF, 0xFE, 0, UInt8(2 + marker.count)] + marker + [0xFF, 0xD9]
        },
        UnreadCase(testDescription: "PNG tEXt raw profile", format: .png, handling: .strip) {
            ColorFixtures.insertPNGChunk("tEXt", payload: Array("Raw profile type iptc".utf8) + [0] + marker, into: try plain(.png))
        },
        UnreadCase(testDescription: "PNG zTXt raw profile", format: .png, handling: .strip) {
            // The keyword is stored uncompressed, the text deflated (here as one stored block).
            let stored: [UInt8] = [0x78, 0x01, 0x01, UInt8(marker.count), 0, ~UInt8(marker.count), 0xFF] + marker + [0, 0, 0, 0]
            return ColorFixtures.insertPNGChunk("zTXt", payload: Array("Raw profile type exif".utf8) + [0, 0] + stored, into: try plain(.png))
        },
        UnreadCase(testDescription: "PNG eXIf with a bad CRC", format: .png, handling: .strip) {
            insertingDamagedChunk("eXIf", payload: MetadataFixtures.exif(orientation: 1) + marker, into: try plain(.png))
        },
        UnreadCase(testDescription: "PNG with bytes after IEND", format: .png, handling: .strip) {
            try plain(.png) + marker
        },
        UnreadCase(testDescription: "WebP unknown chunk", format: .webp, handling: .strip) {
            webP(try plain(.webp), appending: "IPTC", payload: marker)
        },
        UnreadCase(testDescription: "WebP unknown chunk inside an animation frame", format: .webp, handling: .strip) {
            try animatedWebP(withFrameChunk: "IPTC", payload: marker)
        },
        UnreadCase(testDescription: "GIF with bytes after the trailer", format: .gif, handling: .strip) {
            try plain(.gif) + marker
        },
        UnreadCase(testDescription: "GIF comment", format: .gif, handling: .strip) {
            let gif = try plain(.gif)
            return gif.dropLast() + [0x21, 0xFE, UInt8(marker.count)] + marker + [0, 0x3B]
        },
    ]

    @Test("Metadata the coder does not read is never copied to an output of the same format", arguments: unreadCases)
    func unreadMetadataIsNotCopiedThrough(_ unread: UnreadCase) throws {
        let source = try unread.make()
        let image = try Self.coders.decodeImage(source, options: ImageDecodeOptions(metadataHandling: unread.handling))
        #expect(image.metadata.hasUnreadMetadata)
        let output = try written(source, as: unread.format, handling: unread.handling)
        #expect(output != source)
        #expect(!MetadataFixtures.contains(output, MetadataFixtures.unreadMarker))
        #expect(!MetadataFixtures.contains(output, "Raw profile type"))
        #expect(try Self.coders.decode(output, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 8, height: 4))
    }

    @Test("A file holding only what the coders read is still copied byte for byte", arguments: [ImageFormat.jpeg, .png, .webp, .gif])
    func cleanFileIsCopied(format: ImageFormat) throws {
        let source = try Self.plain(format)
        #expect(try written(source, as: format) == source)
        // keepAll passes everything on, unread metadata included.
        let iptc = MetadataFixtures.jpeg(try Self.plain(.jpeg), segments: [(0xED, MetadataFixtures.iptcPayload())])
        #expect(try written(iptc, as: .jpeg, handling: .keepAll) == iptc)
    }

    @Test("Scans of a progressive JPEG and frames of an animated WebP are not taken for metadata")
    func cleanMultiPartFilesAreNotFlagged() throws {
        let progressive = try Corpus.data("jpeg", "jpeg-decoder/reftest/mozilla/jpg-progressive.jpg")
        #expect(!(try Self.coders.decodeImage(progressive, options: ImageDecodeOptions())).metadata.hasUnreadMetadata)
        let animated = try Self.animatedWebP()
        #expect(!(try Self.coders.decodeImage(animated, options: ImageDecodeOptions())).metadata.hasUnreadMetadata)
    }

    @Test(
        "A first-frame decode of an animation is written as a still, never as the animated original",
        arguments: [ImageFormat.webp, .png, .gif])
    func firstFrameOfAnimationIsNotCopiedThrough(format: ImageFormat) throws {
        let first = try Self.pixels(.rgba8)
        let second = try PixelBuffer(width: 8, height: 4, format: .rgba8, bytes: first.bytes.map { ~$0 | 0x0F })
        let frames = [ImageFrame(first, duration: 0.1), ImageFrame(second, duration: 0.1)]
        let source = try Self.coders.encode(frames: frames, loopCount: 0, as: format, options: ImageEncodeOptions(lossless: true))
        var options = ImageDecodeOptions()
        options.firstFrameOnly = true
        let image = try Self.coders.decodeImage(source, options: options)
        #expect(!image.isAnimated)
        let output = try ImageOutput.encode(image, originalData: source, as: format, options: ImageEncodeOptions(lossless: true), coders: Self.coders)
        #expect(output != source)
        #expect(!(try Self.coders.decodeImage(output, options: ImageDecodeOptions())).isAnimated)
    }

    @Test("A file whose EXIF was too big to read is re-encoded, not copied through with its GPS", arguments: [ImageMetadataHandling.strip, .keep])
    func oversizedExifIsNotCopiedThrough(handling: ImageMetadataHandling) throws {
        let source = MetadataFixtures.png(try Self.plain(.png), exif: MetadataFixtures.exif(orientation: 1), xmp: nil)
        let image = try Self.coders.decodeImage(source, options: ImageDecodeOptions(metadataHandling: handling, maxMetadataBytes: 16))
        #expect(image.metadata.warnings.contains { $0.kind == .metadataIgnored })
        let output = try written(source, as: .png, handling: handling, maxMetadataBytes: 16)
        #expect(!MetadataFixtures.contains(output, MetadataFixtures.gpsMarker))
    }

    /// PNGCoder behind nine warnings of its own, as a coder of a badly damaged file gives them:
    /// the image keeps the first `ImageDecodeWarning.maxPerImage`, so PNG's own are dropped.
    struct NoisyPNGCoder: ImageCoder {
        func canDecode(_ data: Data) -> Bool { PNGCoder().canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
            var image = try PNGCoder().decode(data, options: options)
            let noise = (0..<9).map { ImageDecodeWarning(.corruptData, message: "PNG: damage \($0)") }
            image.metadata.warnings = Array((noise + image.metadata.warnings).prefix(ImageDecodeWarning.maxPerImage))
            return image
        }
        func canEncode(to format: ImageFormat) -> Bool { PNGCoder().canEncode(to: format) }
        func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
            try PNGCoder().encode(image, as: format, options: options)
        }
    }

    @Test("An EXIF too big to read is not copied through even when nine other warnings fill the cap")
    func oversizedExifBehindFullWarnings() throws {
        let source = MetadataFixtures.png(try Self.plain(.png), exif: MetadataFixtures.exif(orientation: 1), xmp: nil)
        let coders = ImageCodersManager(coders: [NoisyPNGCoder()])
        let image = try coders.decodeImage(
            source, options: ImageDecodeOptions(maxMetadataBytes: 16),
            colorConverters: ImageColorConvertersManager())
        // The size warning is among those dropped: only the flag remains.
        #expect(image.metadata.warnings.count == ImageDecodeWarning.maxPerImage)
        #expect(!image.metadata.warnings.contains { $0.kind == .metadataIgnored })
        #expect(image.metadata.hasUnreadMetadata && image.metadata.removedMetadata)
        let output = try ImageOutput.encode(image, originalData: source, as: .png, options: ImageEncodeOptions(), coders: coders)
        #expect(output != source)
        #expect(!MetadataFixtures.contains(output, MetadataFixtures.gpsMarker))
    }
}
