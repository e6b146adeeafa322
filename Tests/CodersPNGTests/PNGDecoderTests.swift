import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("PNG decoding", .dedicatedThreads)
struct PNGDecoderTests {
    let coder = PNGCoder()

    static let decodeRows = Corpus.rows("pngsuite").filter(\.expectDecode)
    static let rejectRows = Corpus.rows("pngsuite").filter { !$0.expectDecode }

    @Test("Every PngSuite file that must decode shows at its listed size as one frame", arguments: decodeRows)
    func decodesCorpusRow(row: Corpus.Row) throws {
        let image = try coder.decode(try Data(contentsOf: row.url), options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.frameCount == row.frames)
        #expect(image.format == .png)
        #expect(!image.isThumbnail)
    }

    /// Covers the disputed rows too: xcsn0g01 and badcrc (bad CRCs) must be refused even though
    /// Pillow shows them, and huge_IDAT fails cleanly.
    @Test("Every corrupt or hostile PNG is refused with a typed error", arguments: rejectRows)
    func rejectsCorpusRow(row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions()) }
    }

    @Test("A bad IDAT checksum is reported as damaged data, naming the CRC")
    func badChecksumNamesCRC() throws {
        for file in ["xcsn0g01.png", "libpng-crashers/badcrc.png"] {
            let error = #expect(throws: ImagePipeError.self) {
                try coder.decode(try Corpus.data("pngsuite", file), options: ImageDecodeOptions())
            }
            guard case .badImageData(let reason)? = error else {
                Issue.record("expected badImageData for \(file), got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("CRC"), "\(file): \(reason)")
        }
    }

    /// Interlaced and non-interlaced files of the same picture (PngSuite ships both), and the
    /// chunk-splitting variants of the 16-bit images, must show identical pixels.
    @Test(
        "Interlaced and split-chunk variants show exactly the same pixels as their plain twin",
        arguments: Self.equivalentPairs)
    func equivalentFilesMatch(pair: EquivalentPair) throws {
        let a = try coder.decode(try Corpus.data("pngsuite", pair.file), options: ImageDecodeOptions())
        let b = try coder.decode(try Corpus.data("pngsuite", pair.twin), options: ImageDecodeOptions())
        #expect(a.pixelFormat == b.pixelFormat)
        #expect(a.firstFrame == b.firstFrame)
    }

    struct EquivalentPair: Sendable, CustomTestStringConvertible {
        let file: String
        let twin: String
        var testDescription: String { "\(file) = \(twin)" }
    }

    static let equivalentPairs: [EquivalentPair] = {
        let files = Set(Corpus.rows("pngsuite").map(\.file))
        var pairs: [EquivalentPair] = []
        for file in files.sorted() {
            // basi0g01 = basn0g01, s05i3p02 = s05n3p02: the fifth letter says interlaced or not.
            let name = Array(file)
            guard !file.contains("/"), name.count > 5, name[3] == "i" else { continue }
            var twin = name
            twin[3] = "n"
            let twinName = String(twin)
            if files.contains(twinName) { pairs.append(EquivalentPair(file: file, twin: twinName)) }
        }
        for level in ["oi1", "oi2", "oi4", "oi9"] {
            pairs.append(EquivalentPair(file: "\(level)n0g16.png", twin: "basn0g16.png"))
            pairs.append(EquivalentPair(file: "\(level)n2c16.png", twin: "basn2c16.png"))
        }
        for level in ["z03", "z06", "z09"] {
            pairs.append(EquivalentPair(file: "\(level)n2c08.png", twin: "z00n2c08.png"))
        }
        return pairs
    }()

    @Test(
        "Each PNG keeps the narrowest pixel format that holds it",
        arguments: [
            ("basn0g01.png", PixelFormat.gray8), ("basn0g08.png", .gray8), ("basn0g16.png", .gray8),
            ("basn4a08.png", .grayAlpha8), ("basn4a16.png", .grayAlpha8), ("basn2c08.png", .rgb8),
            ("basn2c16.png", .rgb8), ("basn3p08.png", .rgb8), ("basn6a08.png", .rgba8),
            ("basn6a16.png", .rgba8), ("tbbn3p08.png", .rgba8), ("tbbn0g04.png", .grayAlpha8),
            ("tbrn2c08.png", .rgba8),
        ])
    func keepsNarrowestFormat(file: String, format: PixelFormat) throws {
        let image = try coder.decode(try Corpus.data("pngsuite", file), options: ImageDecodeOptions())
        #expect(image.pixelFormat == format)
    }

    @Test("16-bit samples are rounded to 8 bits and 1-bit gray widens to full black and white")
    func bitDepthsWidenAndRound() throws {
        let gray1 = try coder.decode(try Corpus.data("pngsuite", "basn0g01.png"), options: ImageDecodeOptions()).firstFrame
        #expect(Set(gray1.bytes) == [0, 255])
        // basn0g16 and basn0g08 are different ramps; only the range can be compared.
        let gray16 = try coder.decode(try Corpus.data("pngsuite", "basn0g16.png"), options: ImageDecodeOptions()).firstFrame
        #expect(gray16.bytes.min() == 0 && gray16.bytes.max() == 255)
    }

    @Test("A palette image with tRNS shows its transparent entries as transparent pixels")
    func paletteTransparency() throws {
        let image = try coder.decode(try Corpus.data("pngsuite", "tbbn3p08.png"), options: ImageDecodeOptions())
        #expect(image.firstFrame.hasTransparentPixels)
        let opaque = try coder.decode(try Corpus.data("pngsuite", "basn3p08.png"), options: ImageDecodeOptions())
        #expect(!opaque.hasAlpha)
    }

    @Test(
        "A header claiming a huge canvas fails with the pixel limit before anything is decoded",
        arguments: [(100_000, 100_000), (20_000, 20_000), (2_147_483_647, 2_147_483_647)])
    func bombHeaderFailsFast(width: Int, height: Int) throws {
        // Only a signature and IHDR: if the limit were checked after libpng read on, the error would
        // be about truncation instead.
        let data = Data(PNGTestImages.signature + PNGTestImages.ihdr(width: width, height: height))
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions()) }
        guard case .limitExceeded(.pixels, _, _)? = error else {
            Issue.record("expected a pixel limit error, got \(String(describing: error))")
            return
        }
    }

    @Test("A request's and a coder's lower pixel limit both refuse an image that is otherwise fine")
    func pixelLimitsApply() throws {
        let data = try Corpus.data("pngsuite", "basn2c08.png")
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 1024, maximum: 1000)) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixels: 1000))
        }
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 1024, maximum: 500)) {
            try PNGCoder(maxPixels: 500).decode(data, options: ImageDecodeOptions())
        }
        #expect(try coder.decode(data, options: ImageDecodeOptions(maxPixels: 1024)).pixelSize.width == 32)
    }

    @Test("Files cut before their first row, and unknown critical chunks, are refused as bad data")
    func truncationAndUnknownCriticalChunk() throws {
        let data = try Corpus.data("pngsuite", "basn2c08.png")
        let interlaced = try Corpus.data("pngsuite", "basi2c08.png")
        for (file, length) in [(data, 10), (data, 33), (data, 60), (interlaced, interlaced.count / 2)] {
            #expect(throws: ImagePipeError.self, "cut at \(length)") {
                try coder.decode(file.prefix(length), options: ImageDecodeOptions())
            }
        }
        let chunks = PNGTestImages.chunks(of: data)
        var crafted = PNGTestImages.signature + chunks[0].bytes + PNGTestImages.chunk("ABCD", [1, 2, 3])
        for chunk in chunks.dropFirst() { crafted += chunk.bytes }
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(Data(crafted), options: ImageDecodeOptions()) }
        #expect(error?.code == ImagePipeError.badImageData(reason: "").code)
        // The same chunk spelled as ancillary (lower-case first letter) is skipped.
        crafted = PNGTestImages.signature + chunks[0].bytes + PNGTestImages.chunk("aBCD", [1, 2, 3])
        for chunk in chunks.dropFirst() { crafted += chunk.bytes }
        #expect(try coder.decode(Data(crafted), options: ImageDecodeOptions()).pixelSize == ImageSize(width: 32, height: 32))
    }

    @Test("A PNG cut short shows the rows that arrived, blank below, with a truncation warning", arguments: [false, true])
    func truncatedFileWarns(thumbnail: Bool) throws {
        // Large enough (3 KB) for its image data to span several of libpng's reads.
        let data = try Corpus.data("pngsuite", "basn6a16.png")
        let whole = try coder.decode(data, options: ImageDecodeOptions())
        #expect(whole.metadata.warnings.isEmpty)
        // A thumbnail shrinks rows as they stream past: the cut must reach it the same way.
        let options = thumbnail ? ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 16, height: 16)) : ImageDecodeOptions()
        let image = try coder.decode(data.prefix(data.count / 2), options: options)
        #expect(image.pixelSize == (thumbnail ? ImageSize(width: 16, height: 16) : ImageSize(width: 32, height: 32)))
        let warning = try #require(image.metadata.warnings.first)
        #expect(warning.kind == .truncated)
        #expect(warning.message.hasPrefix("PNG: file is truncated: "), "\(warning.message)")
        #expect(warning.message.hasSuffix(" of 32 rows decoded, the rest left blank"), "\(warning.message)")
        if !thumbnail {
            let rows = try #require(Int(warning.message.split(separator: " ")[4]))
            #expect(rows > 0 && rows < 32)
            let cut = image.firstFrame.bytesPerRow * rows
            #expect(image.firstFrame.bytes.prefix(cut) == whole.firstFrame.bytes.prefix(cut))
            #expect(image.firstFrame.bytes.dropFirst(cut).allSatisfy { $0 == 0 })
        }
        // Cut inside IEND: every row is there, only the end is missing.
        let tail = try coder.decode(data.prefix(data.count - 6), options: options)
        #expect(tail.metadata.warnings == [ImageDecodeWarning(.truncated, message: "PNG: file is truncated after the last row")])
        if !thumbnail { #expect(tail.firstFrame == whole.firstFrame) }
    }

    @Test("libpng warnings about damaged ancillary chunks are kept on the image")
    func libpngWarningsAreKept() throws {
        let image = try coder.decode(try Corpus.data("pngsuite", "libpng-crashers/empty_ancillary_chunks.png"), options: ImageDecodeOptions())
        #expect(!image.metadata.warnings.isEmpty)
        #expect(image.metadata.warnings.allSatisfy { $0.kind == .corruptData && $0.message.hasPrefix("PNG: ") })
        #expect(image.metadata.warnings.count <= ImageDecodeWarning.maxPerImage)
    }

    @Test("Only PNG bytes are accepted; other formats get an unsupported-format error")
    func sniffsMagicBytes() throws {
        let jpeg = try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg")
        #expect(!coder.canDecode(jpeg))
        #expect(coder.canDecode(try Corpus.data("pngsuite", "basn0g01.png")))
        #expect(coder.canDecode(try Corpus.data("jpeg", "jpeg-decoder/reftest/mozilla/jpg-size-6x6.jpg")))
        #expect(throws: ImagePipeError.unsupportedFormat(.jpeg, reason: "PNGCoder decodes PNG only")) {
            try coder.decode(jpeg, options: ImageDecodeOptions())
        }
    }

    @Test("Registered once, the coder decodes PNG through the coders manager")
    func registersInManager() throws {
        let manager = ImageCodersManager()
        manager.add(PNGCoder())
        let image = try manager.decode(try Corpus.data("pngsuite", "basn6a08.png"), options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: 32, height: 32))
        #expect(manager.canEncode(to: .png))
    }
}

@Suite("PNG EXIF orientation", .dedicatedThreads)
struct PNGExifOrientationTests {
    @Test("An eXIf chunk's orientation is recorded on the image, pixels left as stored")
    func recordsExifOrientation() throws {
        let coder = PNGCoder()
        let data = try Corpus.data("pngsuite", "basn2c08.png")
        let plain = try coder.decode(data, options: ImageDecodeOptions())
        #expect(plain.orientation == .up)
        // Big-endian TIFF, IFD0 with one entry: Orientation (0x0112), SHORT, 1 value: 6.
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let chunks = PNGTestImages.chunks(of: data)
        var crafted = PNGTestImages.signature + chunks[0].bytes + PNGTestImages.chunk("eXIf", tiff)
        for chunk in chunks.dropFirst() { crafted += chunk.bytes }
        let image = try coder.decode(Data(crafted), options: ImageDecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.firstFrame == plain.firstFrame)
        #expect(image.displaySize == ImageSize(width: 32, height: 32))
    }
}
