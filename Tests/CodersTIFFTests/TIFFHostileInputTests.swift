import CodersTIFF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Lying sizes, truncations and damage fail with typed errors (libtiff's reason in them, nothing
/// printed), before pixels are allocated.
@Suite("Hostile TIFFs are refused with a typed error", .dedicatedThreads)
struct TIFFHostileInputTests {
    static func claiming(_ width: Int, _ height: Int, in file: String) throws -> Data {
        TIFFTagEditor.adding([(256, 4, TIFFTagEditor.long(width)), (257, 4, TIFFTagEditor.long(height))], to: try Corpus.data("tiff", file))
    }

    @Test("a TIFF claiming 100,000 x 100,000 pixels is refused by maxPixels, naming it")
    func pixelBomb() throws {
        // Strip-based: a tiled file's tile count follows its size, so a new size alone is inconsistent.
        for file in ["rgb8-none.tif", "rgb8-lzw.tif", "ycbcr-420-none.tif"] {
            let bomb = try Self.claiming(100_000, 100_000, in: file)
            let started = ContinuousClock.now
            #expect {
                try TIFFCoder().decode(bomb, options: ImageDecodeOptions())
            } throws: { error in
                guard case .limitExceeded(let limit, let value, _) = error as? ImagePipeError else { return false }
                return limit == .pixels && value == 10_000_000_000 && "\(error)".contains("ImageDecodeOptions.maxPixels")
            }
            #expect(ContinuousClock.now - started < .seconds(1))
        }
    }

    @Test("a strip or tile larger than maxDecoderMemory is refused before libtiff allocates it")
    func decoderMemory() throws {
        let data = try Corpus.data("tiff", "rgb8-tiled-separate.tif")
        #expect {
            try TIFFCoder().decode(data, options: ImageDecodeOptions(maxDecoderMemory: 1000))
        } throws: { error in
            guard case .limitExceeded(let limit, _, _) = error as? ImagePipeError else { return false }
            return limit == .decoderMemory
        }
    }

    @Test("every truncation decodes or fails with an ImagePipeError", arguments: ["rgb8-lzw.tif", "rgb8-tiled-jpeg.tif", "multipage.tif", "palette-lzw.tif"])
    func truncated(_ file: String) throws {
        let data = try Corpus.data("tiff", file)
        for length in stride(from: 0, to: data.count, by: max(data.count / 60, 1)) {
            do {
                _ = try TIFFCoder().decode(data.prefix(length), options: ImageDecodeOptions())
            } catch {
                #expect(error is ImagePipeError, "\(length) of \(data.count) bytes: \(error)")
            }
        }
    }

    @Test("libtiff's reason is in the error")
    func libtiffReason() throws {
        // Strip offsets pointing past the end of the file.
        let data = TIFFTagEditor.adding([(273, 4, TIFFTagEditor.long(1 << 30))], to: try Corpus.data("tiff", "rgb8-lzw.tif"))
        #expect {
            try TIFFCoder().decode(data, options: ImageDecodeOptions())
        } throws: { error in
            guard case .badImageData(let reason) = error as? ImagePipeError else { return false }
            return reason.hasPrefix("TIFF: ") && reason.count > 12
        }
    }

    @Test("a Predictor tag under a codec that has none (JPEG tiles) changes nothing, as in libtiff")
    func strayPredictor() throws {
        // Under JPEG the tag is an unknown field of libtiff's, read with other arguments than the
        // predictor's own: the decoder must not ask for it there.
        let plain = try Corpus.data("tiff", "rgb8-tiled-jpeg.tif")
        let stray = TIFFTagEditor.adding([(317, 3, Data([2, 0]))], to: plain)
        let expected = try TIFFCoder().decode(plain, options: ImageDecodeOptions())
        let image = try TIFFCoder().decode(stray, options: ImageDecodeOptions())
        #expect(image.firstFrame == expected.firstFrame)
    }

    @Test("corrupt copies decode or fail with an ImagePipeError, never crash")
    func corrupt() throws {
        var random = SystemRandomNumberGenerator()
        for file in ["rgb8-lzw.tif", "rgb16-tiled-zip.tif", "gray1-g4.tif", "rgba8-tiled-separate.tif", "ycbcr-420-none.tif"] {
            let data = try Corpus.data("tiff", file)
            for _ in 0..<40 {
                var bytes = [UInt8](data)
                for _ in 0..<4 { bytes[Int.random(in: 8..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
                do {
                    _ = try TIFFCoder().decode(Data(bytes), options: ImageDecodeOptions(maxPixels: 1 << 22))
                } catch {
                    #expect(error is ImagePipeError, "\(file): \(error)")
                }
            }
        }
    }

    @Test("bytes that are not a TIFF are refused without libtiff")
    func notTIFF() {
        #expect(!TIFFCoder().canDecode(Data("II*".utf8)))
        #expect(TIFFCoder().canDecode(Data([0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8])))
        #expect(throws: ImagePipeError.self) { try TIFFCoder().decode(Data("GIF89a".utf8), options: ImageDecodeOptions()) }
    }
}
