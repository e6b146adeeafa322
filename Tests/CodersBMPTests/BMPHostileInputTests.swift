import CodersBMP
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Headers that lie, and damaged files, fail with typed errors before pixels are allocated.
@Suite("Hostile BMPs and icons are refused with a typed error", .dedicatedThreads)
struct BMPHostileInputTests {
    static func setting(width: Int, height: Int, in file: String) throws -> Data {
        var bytes = [UInt8](try Corpus.data("bmp", file))
        bytes.replaceSubrange(18..<26, with: BMPWriter.le32(width) + BMPWriter.le32(height))
        return Data(bytes)
    }

    @Test("a header claiming 100,000 x 100,000 pixels is refused by maxPixels, naming it")
    func pixelBomb() throws {
        let bomb = try Self.setting(width: 100_000, height: 100_000, in: "rgb24.bmp")
        #expect {
            try BMPCoder().decode(bomb, options: ImageDecodeOptions())
        } throws: { error in
            guard case .limitExceeded(let limit, let value, _) = error as? ImagePipeError else { return false }
            return limit == .pixels && value == 10_000_000_000 && "\(error)".contains("ImageDecodeOptions.maxPixels")
        }
        #expect(BMPCoder().decodeEstimate(for: bomb, options: ImageDecodeOptions()) == nil)
    }

    @Test("a header claiming more rows than the file holds is refused, saying both sizes", arguments: ["rgb24.bmp", "palette8.bmp", "mono1.bmp"])
    func lyingSize(_ file: String) throws {
        let lying = try Self.setting(width: 5_000, height: 4_000, in: file)
        #expect {
            try BMPCoder().decode(lying, options: ImageDecodeOptions())
        } throws: { error in
            guard case .badImageData(let reason) = error as? ImagePipeError else { return false }
            return reason.contains("header says 5000x4000") && reason.contains("the file holds")
        }
    }

    @Test("every truncation decodes or fails with an ImagePipeError", arguments: ["rgb24.bmp", "palette4.bmp", "icons-dib-png.ico"])
    func truncated(_ file: String) throws {
        let data = try Corpus.data("bmp", file)
        for length in 0..<min(data.count, 200) {
            expectTypedOrImage(data.prefix(length))
        }
        for length in stride(from: 200, to: data.count, by: 7) { expectTypedOrImage(data.prefix(length)) }
    }

    func expectTypedOrImage(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try BMPCoder(coders: ICOTests.coders).decode(data, options: ImageDecodeOptions(maxPixels: 1 << 22))
        } catch {
            #expect(error is ImagePipeError, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("corrupt copies decode or fail with an ImagePipeError, never crash")
    func corrupt() throws {
        var random = SystemRandomNumberGenerator()
        for file in ["rgb24.bmp", "palette4-os2.bmp", "palette8.bmp", "icons-dib-png.ico", "icons-dib.ico"] {
            let data = try Corpus.data("bmp", file)
            for _ in 0..<100 {
                var bytes = [UInt8](data)
                for _ in 0..<3 { bytes[Int.random(in: 0..<min(bytes.count, 160), using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
                expectTypedOrImage(Data(bytes))
            }
        }
    }

    @Test("RLE data cut short shows the rows it has, with a warning")
    func rleTruncated() throws {
        let stream: [UInt8] = [7, 1, 0, 0, 7, 2]
        let data = BMPWriter.file(width: 7, height: 5, layout: BMPWriter.Layout(bits: 8, compression: 1, palette: BMPDepthTests.palette), rows: [stream])
        let image = try BMPCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.metadata.warnings.map(\.kind) == [.truncated])
        #expect(image.firstFrame.color(x: 0, y: 4).alpha == 255)
        #expect(image.firstFrame.color(x: 0, y: 0).alpha == 0)
    }

    @Test("BMPs holding JPEG or PNG data are unsupported, not corrupt")
    func embeddedCompression() throws {
        var bytes = [UInt8](try Corpus.data("bmp", "rgb24.bmp"))
        bytes.replaceSubrange(30..<34, with: BMPWriter.le32(5))
        #expect {
            try BMPCoder().decode(Data(bytes), options: ImageDecodeOptions())
        } throws: { error in
            if case .unsupportedFormat = error as? ImagePipeError { return true }
            return false
        }
    }
}
