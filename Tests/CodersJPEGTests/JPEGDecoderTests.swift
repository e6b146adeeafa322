import CodersJPEG
import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG decoding", .dedicatedThreads)
struct JPEGDecoderTests {
    // Its own converters, none registered: the references are libjpeg's naive CMYK, and another suite in
    // the process may register a CMS into the shared ones.
    let coder = JPEGCoder(colorConverters: ImageColorConvertersManager())

    static let decodeRows = Corpus.rows("jpeg").filter { $0.expectDecode && !$0.file.hasSuffix("jpg-size-6x6.jpg") }
    static let rejectRows = Corpus.rows("jpeg").filter { !$0.expectDecode }
    static let referenceRows = decodeRows.filter { JPEGTestImages.referenceURL(for: $0) != nil }

    @Test("Every JPEG that must decode shows at its listed size as one frame, warnings or not", arguments: decodeRows)
    func decodesCorpusRow(row: Corpus.Row) throws {
        let image = try coder.decode(try Data(contentsOf: row.url), options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.frameCount == row.frames)
        #expect(image.format == .jpeg)
        // The manifest lists the warnings libjpeg gave; they must have reached the image, not stderr.
        if row.notes.contains("decodes only if JPEG warnings are tolerated") {
            #expect(!image.metadata.warnings.isEmpty)
            #expect(image.metadata.warnings.allSatisfy { $0.message.hasPrefix("JPEG: ") && $0.message.count > 6 })
        }
    }

    @Test("Decoded JPEGs match the reference pixels shipped beside them", arguments: referenceRows)
    func matchesReference(row: Corpus.Row) throws {
        let image = try coder.decode(try Data(contentsOf: row.url), options: ImageDecodeOptions())
        let referenceURL = try #require(JPEGTestImages.referenceURL(for: row))
        let reference = try PNGCoder().decode(try Data(contentsOf: referenceURL), options: ImageDecodeOptions())
        let difference = JPEGTestImages.difference(image.firstFrame, reference.firstFrame)
        if row.file == "libjpeg-turbo/testorig.jpg" {
            // testorig.png is a grayscale rendering made by other means: libjpeg's own grayscale
            // decode differs from it by a mean of 5.7 levels, so only closeness is checked.
            #expect(difference.mean < 8 && difference.max <= 32, "\(difference)")
        } else {
            // ImageMagick's libjpeg output: the same IDCT, so only rounding may differ.
            #expect(difference.mean < 0.5 && difference.max <= 4, "\(difference)")
        }
    }

    @Test("The same picture coded with other tables and with arithmetic coding decodes alike")
    func codingVariantsAgree() throws {
        let original = try coder.decode(try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg"), options: ImageDecodeOptions())
        for file in ["libjpeg-turbo/testimgint.jpg", "libjpeg-turbo/testimgari.jpg"] {
            let variant = try coder.decode(try Corpus.data("jpeg", file), options: ImageDecodeOptions())
            let difference = JPEGTestImages.difference(variant.firstFrame, original.firstFrame)
            #expect(difference.mean < 3, "\(file): \(difference)")
        }
    }

    @Test(
        "Gray JPEGs stay gray; colour, RGB, CMYK and YCCK ones come out as RGB",
        arguments: [
            ("jpeg-decoder/reftest/mozilla/jpg-gray.jpg", PixelFormat.gray8),
            ("jpeg-decoder/reftest/mozilla/jpg-cmyk-1.jpg", .rgb8), ("jpeg-decoder/reftest/ycck.jpg", .rgb8),
            ("jpeg-decoder/reftest/rgb.jpg", .rgb8), ("libjpeg-turbo/testorig.jpg", .rgb8),
        ])
    func pixelFormats(file: String, format: PixelFormat) throws {
        #expect(try coder.decode(try Corpus.data("jpeg", file), options: ImageDecodeOptions()).pixelFormat == format)
    }

    @Test(
        "12-bit and lossless JPEGs are refused as unsupported, not as corrupt",
        arguments: [
            "libjpeg-turbo/monkey12.jpg", "jpeg-decoder/reftest/lossless/jpeg_lossless_sel1.jpg",
            "jpeg-decoder/crashtest/invalid-prediction-shift.jpg",
        ])
    func unsupportedProcesses(file: String) throws {
        let error = #expect(throws: ImagePipeError.self) {
            try coder.decode(try Corpus.data("jpeg", file), options: ImageDecodeOptions())
        }
        guard case .unsupportedFormat(.jpeg, _)? = error else {
            Issue.record("expected unsupportedFormat, got \(String(describing: error))")
            return
        }
    }

    @Test(
        "A frame header claiming a huge canvas fails with the pixel limit before decoding",
        arguments: [(60_000, 60_000), (65_535, 65_535), (20_000, 10_000)])
    func bombHeaderFailsFast(width: Int, height: Int) throws {
        // SOI and a baseline SOF0 for three components, nothing else: any attempt to decode would
        // fail on the missing tables and scans instead of on the limit.
        let sof: [UInt8] = [
            0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
            0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01,
        ]
        let data = Data([0xFF, 0xD8] + sof + [0xFF, 0xD9])
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions()) }
        guard case .limitExceeded(.pixels, let value, _)? = error else {
            Issue.record("expected a pixel limit error, got \(String(describing: error))")
            return
        }
        #expect(value == width * height)
    }

    @Test("A PNG named .jpg is refused by the JPEG coder alone and decoded as PNG by the coders manager")
    func magicBytesDecide() throws {
        let data = try Corpus.data("jpeg", "jpeg-decoder/reftest/mozilla/jpg-size-6x6.jpg")
        #expect(!coder.canDecode(data))
        #expect(throws: ImagePipeError.unsupportedFormat(.png, reason: "JPEGCoder decodes JPEG only")) {
            try coder.decode(data, options: ImageDecodeOptions())
        }
        let image = try JPEGTestImages.coders.decode(data, options: ImageDecodeOptions())
        #expect(image.format == .png)
        #expect(image.pixelSize == ImageSize(width: 6, height: 6))
        let reference = try PNGCoder().decode(try Corpus.data("jpeg", "jpeg-decoder/reftest/mozilla/jpg-size-6x6.png"), options: ImageDecodeOptions())
        #expect(JPEGTestImages.difference(image.firstFrame, reference.firstFrame).max <= 1)
        // And through the manager, a real JPEG still goes to the JPEG coder.
        #expect(try JPEGTestImages.coders.decode(try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg"), options: ImageDecodeOptions()).format == .jpeg)
    }

    @Test("libjpeg warnings are reported on the image and never written to stderr")
    func warningsStayOffStderr() throws {
        let files = [
            "jpeg-decoder/reftest/extraneous-data.jpg", "jpeg-decoder/crashtest/dc-predictor-overflow.jpg",
            "jpeg-decoder/reftest/progressive-missing-dc.jpg",
        ]
        let captured = try StandardErrorCapture.capturing {
            for file in files {
                let image = try coder.decode(try Corpus.data("jpeg", file), options: ImageDecodeOptions())
                #expect(!image.metadata.warnings.isEmpty, "\(file)")
                #expect(image.metadata.warnings.allSatisfy { $0.kind == .corruptData }, "\(file)")
            }
        }
        #expect(!captured.contains("Corrupt JPEG data"), "stderr got: \(captured)")
    }

    @Test("A truncated JPEG shows the rows it has, grey below, with a 'premature end' truncation warning")
    func truncatedFileWarns() throws {
        let whole = try Corpus.data("jpeg", "libjpeg-turbo/testorig.jpg")
        let captured = try StandardErrorCapture.capturing {
            let image = try coder.decode(whole.prefix(whole.count * 2 / 3), options: ImageDecodeOptions())
            #expect(image.pixelSize == ImageSize(width: 227, height: 149))
            let truncation = try #require(image.metadata.warnings.first { $0.kind == .truncated })
            #expect(truncation.message == "JPEG: Premature end of JPEG file")
            let buffer = image.firstFrame
            #expect(buffer.bytes.suffix(buffer.bytesPerRow).allSatisfy { $0 == 128 })
            // The complete file decodes without a word.
            #expect(try coder.decode(whole, options: ImageDecodeOptions()).metadata.warnings.isEmpty)
        }
        #expect(!captured.contains("Corrupt JPEG data"), "stderr got: \(captured)")
        #expect(!captured.contains("Premature end"), "stderr got: \(captured)")
    }

    @Test("Every malformed, 12-bit or lossless JPEG is refused with a typed error", arguments: rejectRows)
    func rejectsCorpusRow(row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        #expect(throws: ImagePipeError.self) { try coder.decode(data, options: ImageDecodeOptions()) }
    }
}
