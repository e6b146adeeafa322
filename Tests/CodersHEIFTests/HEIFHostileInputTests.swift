@testable import CodersHEIF
import Foundation
import PipelineCore
import Testing
import TestSupport

/// Truncated, corrupt and oversized files fail with typed errors before pixels are allocated.
@Suite(.enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
struct HEIFHostileInputTests {
    /// `data` with every `ispe` box claiming `width` x `height`.
    static func claiming(_ width: Int, _ height: Int, in data: Data) -> Data {
        var bytes = [UInt8](data)
        let tag = Array("ispe".utf8)
        for at in 0..<(bytes.count - 16) where Array(bytes[at..<at + 4]) == tag {
            bytes.replaceSubrange(at + 8..<at + 16, with: HostileImages.be32(width) + HostileImages.be32(height))
        }
        return Data(bytes)
    }

    @Test("every truncation fails with an ImagePipeError", arguments: HEIFFixtures.stills)
    func truncated(_ sample: HEIFFixtures.Sample) throws {
        let data = try sample.data()
        for length in stride(from: 0, to: data.count, by: max(data.count / 40, 1)) {
            do {
                _ = try HEIFCoder().decode(data.prefix(length), options: ImageDecodeOptions())
                Issue.record("\(length) of \(data.count) bytes decoded")
            } catch {
                #expect(error is ImagePipeError, "\(length) of \(data.count) bytes: \(error)")
            }
        }
    }

    @Test("corrupt copies decode or fail with an ImagePipeError, never crash")
    func corrupt() throws {
        let data = try HEIFFixtures.alpha.data()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<60 {
            var bytes = [UInt8](data)
            for _ in 0..<4 { bytes[Int.random(in: 12..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            do { _ = try HEIFCoder().decode(Data(bytes), options: ImageDecodeOptions()) } catch { #expect(error is ImagePipeError) }
        }
    }

    @Test("a header claiming more pixels than maxPixels is refused before decoding", arguments: [12_000, 60_000])
    func pixelBomb(_ side: Int) throws {
        let bomb = Self.claiming(side, side, in: try HEIFFixtures.rgb.data())
        #expect {
            try HEIFCoder().decode(bomb, options: ImageDecodeOptions())
        } throws: { error in
            guard case ImagePipeError.limitExceeded(let limit, let value, _) = error else { return false }
            return limit == .pixels && value == side * side
        }
        #expect(HEIFCoder().decodeEstimate(for: bomb, options: ImageDecodeOptions()) == nil)
    }

    @Test("a file whose planes exceed maxDecoderMemory is refused before decoding")
    func decoderMemory() throws {
        let data = try HEIFFixtures.rgb.data()
        #expect {
            try HEIFCoder().decode(data, options: ImageDecodeOptions(maxDecoderMemory: 1000))
        } throws: { error in
            guard case ImagePipeError.limitExceeded(let limit, _, _) = error else { return false }
            return limit == .decoderMemory
        }
    }

    @Test("bytes of another format are refused as that format")
    func foreign() {
        #expect(throws: ImagePipeError.unsupportedFormat(.webp, reason: "HEIFCoder decodes HEIC only")) {
            try HEIFCoder().decode(Data("RIFF\0\0\0\0WEBPVP8 ".utf8), options: ImageDecodeOptions())
        }
    }
}

/// What libheif allocates is written in places it trusts: a grid's or overlay's canvas in the
/// item's data, a picture's size in its HEVC parameter sets. Both are read before it decodes.
struct HEIFDecodeFootprintTests {
    static func finding(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/heif/\(name)")
    }

    /// A 587-byte file (a fuzz finding) whose grid claims 28015x28534: libheif allocated 800 MB.
    @Test("a grid canvas over maxPixels is refused before libheif allocates it")
    func gridCanvasBomb() throws {
        let data = try Data(contentsOf: Self.finding("oom-2603d7ffc5f574c7ce1b0b95c23ce2a8350b7930"))
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 28_015 * 28_534, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try HEIFCoder().decode(data, options: ImageDecodeOptions())
        }
        #expect(HEIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) == nil)
    }

    /// A 1,909-byte file (a fuzz finding): a 32x32 grid whose one tile is an overlay claiming
    /// 9362x18463; libheif and libde265 reached 778 MB for it.
    @Test("an overlay nested in a grid is measured too: its canvas over maxPixels is refused")
    func nestedOverlayBomb() throws {
        let data = try Data(contentsOf: Self.finding("oom-1aa1c418fe494762bc63b80945cb5022ea435078"))
        #expect(HEIFDecodeFootprint.measure(data) == .footprint(.init(largest: ImageSize(width: 9362, height: 18_463), decodedPixels: 0)))
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 9362 * 18_463, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try HEIFCoder().decode(data, options: ImageDecodeOptions())
        }
        #expect(HEIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) == nil)
    }

    @Test("an image that is not a grid decodes as before", .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func plainImage() throws {
        let data = try HEIFFixtures.rgb.data()
        #expect(HEIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) != nil)
        // heif-enc 1.15 writes a 37x23 grid of one 64x64 tile.
        #expect(HEIFDecodeFootprint.measure(data) == .footprint(.init(largest: ImageSize(width: 64, height: 64), decodedPixels: 64 * 64)))
    }

    @Test("a picture whose HEVC parameter sets declare more than its ispe is refused at that size",
          .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func codedSizeOverDeclaredSize() throws {
        let source = try ToolFixtures.sourcePNG(width: 1024, height: 1024, alpha: false)
        let data = try ToolFixtures.make("coded-1024.heic", tool: "heif-enc", ["-q", "10", source.path, "-o"])
        let small = HEIFHostileInputTests.claiming(16, 16, in: data)
        let options = ImageDecodeOptions(maxPixels: 500_000)
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 1024 * 1024, maximum: 500_000)) {
            try HEIFCoder().decode(small, options: options)
        }
        #expect(HEIFCoder().decodeEstimate(for: small, options: options) == nil)
    }
}
