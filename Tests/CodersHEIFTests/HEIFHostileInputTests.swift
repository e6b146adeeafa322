import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersHEIF

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
        // The same overlay behind an `iref` entry whose declared size runs past the box (a later
        // finding, 597 bytes, 554 MB): libheif reads the entry anyway, and so does the measure.
        let missized = try Data(contentsOf: Self.finding("oom-f5da1e947b6d0c892a3771ec128e511603c81bcf"))
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 9362 * 18_463, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try HEIFCoder().decode(missized, options: ImageDecodeOptions())
        }
    }

    /// A 1,792-byte file (a fuzz finding) whose `iref` entry declares a wrong size: libheif reads
    /// the IDs after it anyway, making grid 2 derived from itself, and recursed until its stack
    /// overflowed.
    @Test("a grid derived from itself through a mis-sized iref entry is bad data, not a stack overflow")
    func selfDerivedGrid() throws {
        let data = try Data(contentsOf: Self.finding("crash-d0efaa9d9181ffbe9c50e6bf4aa7d4ed2ec4e259"))
        #expect(HEIFDecodeFootprint.measure(data) == .unreadable("HEIF item 2 is derived from itself"))
        #expect(throws: ImagePipeError.badImageData(reason: "HEIF item 2 is derived from itself")) {
            try HEIFCoder().decode(data, options: ImageDecodeOptions())
        }
    }

    @Test("an image that is not a grid decodes as before", .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func plainImage() throws {
        let data = try HEIFFixtures.rgb.data()
        #expect(HEIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) != nil)
        // heif-enc 1.15 writes a 37x23 grid of one 64x64 tile.
        #expect(HEIFDecodeFootprint.measure(data) == .footprint(.init(largest: ImageSize(width: 64, height: 64), decodedPixels: 64 * 64)))
    }

    @Test(
        "a picture whose HEVC parameter sets declare more than its ispe is refused at that size",
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

/// Item tables written here, without pixels: what the measure makes of references.
struct HEIFItemReferenceTests {
    enum Item {
        /// A grid whose data (in `idat`) declares `canvas`, derived from `tiles`.
        case grid(id: Int, canvas: Int, tiles: [Int])
        /// A coded image declaring `side` x `side` in `ispe`.
        case coded(id: Int, side: Int)
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        HostileImages.be32(8 + payload.count) + Array(type.utf8) + payload
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// A file whose primary item is `primary`, listing `items`.
    static func file(primary: Int, _ items: [Item]) -> Data {
        var infe: [UInt8] = [], idat: [UInt8] = [], locations: [UInt8] = [], properties: [UInt8] = [], associations: [UInt8] = []
        var references: [UInt8] = []
        var count = 0
        for item in items {
            switch item {
            case .grid(let id, let canvas, let tiles):
                infe += box("infe", [2, 0, 0, 0] + be16(id) + [0, 0] + Array("grid".utf8) + [0])
                // iloc version 1: id, construction method 1 (idat), data reference, one extent of
                // 32-bit offset and length.
                locations += be16(id) + be16(1) + be16(0) + be16(1) + HostileImages.be32(idat.count) + HostileImages.be32(8)
                idat += [0, 0, 0, 0] + be16(canvas) + be16(canvas)
                references += box("dimg", be16(id) + be16(tiles.count) + tiles.flatMap(be16))
            case .coded(let id, let side):
                infe += box("infe", [2, 0, 0, 0] + be16(id) + [0, 0] + Array("hvc1".utf8) + [0])
                locations += be16(id) + be16(1) + be16(0) + be16(0)
                properties += box("ispe", [0, 0, 0, 0] + HostileImages.be32(side) + HostileImages.be32(side))
                count += 1
                associations += be16(id) + [1, UInt8(count)]
            }
        }
        let meta = box(
            "meta",
            [0, 0, 0, 0]
                + box("pitm", [0, 0, 0, 0] + be16(primary))
                + box("iinf", [0, 0, 0, 0] + be16(items.count) + infe)
                + box("iloc", [1, 0, 0, 0, 0x44, 0x00] + be16(items.count) + locations)
                + box("idat", idat)
                + box("iprp", box("ipco", properties) + box("ipma", [0, 0, 0, 0] + HostileImages.be32(count) + associations))
                + box("iref", [0, 0, 0, 0] + references))
        return Data(box("ftyp", Array("heicmif1".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta)
    }

    @Test("a tile listed many times counts each time: the pixels decoded must fit maxPixels")
    func repeatedTile() throws {
        let data = Self.file(primary: 1, [.grid(id: 1, canvas: 100, tiles: Array(repeating: 2, count: 16)), .coded(id: 2, side: 100)])
        #expect(HEIFDecodeFootprint.measure(data) == .footprint(.init(largest: ImageSize(width: 100, height: 100), decodedPixels: 160_000)))
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 160_000, maximum: 100_000)) {
            try HEIFCoder.footprint(data, options: ImageDecodeOptions(maxPixels: 100_000))
        }
    }

    @Test("an image derived from itself, or nested too deep, is bad data")
    func cyclesAndDepth() {
        let cycle = Self.file(primary: 1, [.grid(id: 1, canvas: 64, tiles: [2]), .grid(id: 2, canvas: 64, tiles: [1])])
        #expect(HEIFDecodeFootprint.measure(cycle) == .unreadable("HEIF item 1 is derived from itself"))
        let depth = HEIFDecodeFootprint.maxDepth + 2
        let chain = Self.file(primary: 1, (1...depth).map { .grid(id: $0, canvas: 64, tiles: $0 < depth ? [$0 + 1] : []) })
        #expect(HEIFDecodeFootprint.measure(chain) == .unreadable("HEIF derived images are nested more than \(HEIFDecodeFootprint.maxDepth) deep"))
        #expect(throws: ImagePipeError.self) { try HEIFCoder().decode(cycle, options: ImageDecodeOptions()) }
    }
}
