import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersHEIF

/// HEVC sequence parameter sets read as libde265 reads them: heif-enc's are read field by field
/// and pass; one libde265 would refuse, printing "SPS error: …" on stderr, is refused before it
/// gets there, with a typed error naming the check, and nothing on stderr.
@Suite(.enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
struct HEVCSequenceParameterSetTests {
    /// The sets of `data`'s first coded item matching `item`.
    static func parameterSets(_ data: Data, item: (HEIFItemTable.Item) -> Bool) throws -> [HEVCSequenceParameterSet] {
        let bytes = [UInt8](data)
        let table = try #require(HEIFItemTable(bytes))
        let found = try #require(table.items.values.first { $0.type == "hvc1" && item($0) })
        let configuration = try #require(found.hevcConfiguration)
        return try HEVCSequenceParameterSetUnits.units(configuration: configuration, data: found.extents, of: bytes).map {
            try HEVCSequenceParameterSet(nal: $0)
        }
    }

    @Test("heif-enc's sets read field by field and pass libde265's checks")
    func heifEncSets() throws {
        // The 37x23 image is a grid of one tile, coded at 64x64 in 8-bit 4:2:0 with no cropping.
        let tile = try #require(try Self.parameterSets(HEIFFixtures.rgb.data()) { _ in true }.only)
        #expect(tile.width == 64 && tile.height == 64 && tile.conformanceWindow == nil)
        #expect(tile.chromaFormat == 1 && !tile.separateColourPlanes && tile.bitDepthLuma == 8 && tile.bitDepthChroma == 8)
        #expect(tile.maxSubLayers == 1 && tile.id == 0 && tile.maxDecodedPictureBuffering.count == 1)
        // The coded size is a whole number of the smallest coding blocks; transform blocks fit them.
        #expect(tile.width % (1 << tile.log2MinCodingBlockSize) == 0 && tile.log2MinTransformBlockSize <= tile.log2MinCodingBlockSize)
        try tile.checkDecodable()

        // libheif's sizes of the primary image and its thumbnail are their coded sizes.
        let thumbnailed = try HEIFFixtures.withThumbnail.data()
        let primary = try #require(try Self.parameterSets(thumbnailed) { $0.declaredSize?.width == 640 }.only)
        let thumbnail = try #require(try Self.parameterSets(thumbnailed) { $0.declaredSize?.width == 320 }.only)
        #expect(primary.width == 640 && primary.height == 480 && thumbnail.width == 320 && thumbnail.height == 240)
        try primary.checkDecodable()
        try thumbnail.checkDecodable()

        // libheif reports 10 bits a sample for heif-enc's -b 10.
        let tenBit = try #require(try Self.parameterSets(HEIFFixtures.tenBit.data()) { _ in true }.first)
        #expect(tenBit.bitDepthLuma == 10 && tenBit.bitDepthChroma == 10)
        try tenBit.checkDecodable()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let edit: HEVCParameterSetEditor.Edit
        /// The check, as libde265 names it printing "SPS error: <check>".
        let libde265Says: String
        /// What the refusal's reason says.
        let reasonSays: String
        var testDescription: String { libde265Says }
    }

    /// One of each check libde265 prints about, made from heif-enc's 64x64 tile (coding blocks
    /// 8 to 16, transform blocks 4 to 16) by rewriting fields in as many bits.
    static let cases = [
        Case(
            edit: .width(plus: 4), libde265Says: "CB alignment",
            reasonSays: "picture size 68x64 is not a multiple of the smallest coding block (8)"),
        Case(
            edit: .blockSizes([0, 0, 0, 0, 2, 3]), libde265Says: "transform hierarchy depth (inter) > CTB size - min TB size",
            reasonSays: "max_transform_hierarchy_depth_inter 2 is more than the 1 levels"),
        Case(
            edit: .blockSizes([0, 0, 0, 0, 0, 7]), libde265Says: "transform hierarchy depth (intra) > CTB size - min TB size",
            reasonSays: "max_transform_hierarchy_depth_intra 7 is more than the 1 levels"),
        Case(
            edit: .blockSizes([0, 3, 2, 0, 0, 0]), libde265Says: "TB > CB",
            reasonSays: "smallest transform block (log2 4) is larger than the smallest coding block (log2 3)"),
        Case(
            edit: .blockSizes([0, 0, 0, 2, 1, 1]), libde265Says: "TB_max > 32 or CTB",
            reasonSays: "largest transform block (log2 4) is larger than 32 or the coding tree block (log2 3)"),
    ]

    static func malformed(_ edit: HEVCParameterSetEditor.Edit) throws -> Data {
        try HEVCParameterSetEditor.editing(try HEIFFixtures.rgb.data(), item: { _, _ in true }, edit)
    }

    static func isRefusal(_ error: any Error, saying text: String) -> Bool {
        guard case ImagePipeError.badImageData(let reason) = error else { return false }
        return reason.contains("HEVC sequence parameter set the decoder refuses") && reason.contains(text)
    }

    @Test("a set libde265 refuses is bad data naming the check, as libde265 names it on stderr", arguments: cases)
    func refusedBeforeLibde265(_ sample: Case) throws {
        let data = try Self.malformed(sample.edit)
        #expect { try HEIFCoder().decode(data, options: ImageDecodeOptions()) } throws: { Self.isRefusal($0, saying: sample.reasonSays) }
        #expect(HEIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) == nil)
        // The same file given to libde265 through heif-convert: it prints what this check mirrors.
        let url = ToolFixtures.url("sps-\(UUID().uuidString).heic")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let converted = try TestProcesses.runMeasuringPeakMemory("/usr/bin/heif-convert", [url.path, url.path + ".png"])
        try? FileManager.default.removeItem(atPath: url.path + ".png")
        #expect(converted.standardError.contains("SPS error: \(sample.libde265Says)\n"), "\(converted.standardError)")
    }

    @Test("imagepipe info on such a file fails naming the check and prints no libde265 line", arguments: cases)
    func nothingOnStderr(_ sample: Case) throws {
        let url = ToolFixtures.url("sps-\(UUID().uuidString).heic")
        try Self.malformed(sample.edit).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let run = try TestProcesses.runMeasuringPeakMemory(Self.imagepipe.path, ["info", url.path])
        #expect(run.exitStatus != 0 && run.exitStatus != nil)
        #expect(!run.standardError.contains("SPS error"), "\(run.standardError)")
        // Every line on stderr is the tool's own report of the refusal.
        let lines = run.standardError.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(sample.reasonSays) }, "\(run.standardError)")
    }

    /// The built `imagepipe`, beside the test binary.
    static var imagepipe: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("imagepipe")
    }

    @Test("an embedded thumbnail's sets are checked when it is decoded, and only then")
    func thumbnailSets() throws {
        let data = try HEVCParameterSetEditor.editing(
            try HEIFFixtures.withThumbnail.data(), item: { id, table in table[id]?.declaredSize?.width == 320 },
            .width(plus: 4))
        let thumbnailRequest = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 256, height: 256))
        #expect { try HEIFCoder().decode(data, options: thumbnailRequest) } throws: {
            Self.isRefusal($0, saying: "picture size 324x240 is not a multiple of the smallest coding block (8)")
        }
        // The primary image alone is decoded without it.
        #expect(try HEIFCoder().decode(data, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 640, height: 480))
    }

    @Test("an alpha plane's sets are checked with its image's")
    func alphaSets() throws {
        // heif-enc writes the alpha plane as a grid (carrying `auxC`) of one coded tile.
        let isAlphaTile = { (id: Int, table: HEIFItemTable) in
            table[id]?.isAlpha == true || table.items.values.contains { $0.isAlpha && $0.derivedFrom.contains(id) }
        }
        let data = try HEVCParameterSetEditor.editing(try HEIFFixtures.alpha.data(), item: isAlphaTile, .width(plus: 4))
        #expect { try HEIFCoder().decode(data, options: ImageDecodeOptions()) } throws: {
            Self.isRefusal($0, saying: "is not a multiple of the smallest coding block")
        }
    }
}

/// Where libheif finds the units it hands libde265, built here byte by byte.
struct HEVCSequenceParameterSetUnitsTests {
    static let sps: [UInt8] = [0x42, 0x01, 0xAA, 0xBB, 0xCC]

    @Test("units of item data are found behind 4-byte lengths across extents; other types and layers are not")
    func itemDataUnits() {
        let layerOne: [UInt8] = [0x42, 0x09, 0x01]
        let pps: [UInt8] = [0x44, 0x01, 0x02]
        func unit(_ bytes: [UInt8]) -> [UInt8] { HostileImages.be32(bytes.count) + bytes }
        // An hvcC payload of 22 bytes of fields and one array holding the SPS, then item data.
        let configuration = [UInt8](repeating: 0, count: 22) + [1, 0x21, 0, 1, 0, UInt8(Self.sps.count)] + Self.sps
        let data = unit(pps) + unit(layerOne) + unit(Self.sps) + unit([0x42, 0x01, 0xEE]) + [0, 0, 0, 9, 0x42]
        // The data split inside the SPS, after a byte of padding that is not the item's.
        let split = 20
        let bytes = configuration + Array(data[..<split]) + [0xFF] + Array(data[split...])
        let extents = [configuration.count..<configuration.count + split, configuration.count + split + 1..<bytes.count]
        let units = HEVCSequenceParameterSetUnits.units(configuration: 0..<configuration.count, data: extents, of: bytes).map(Array.init)
        // The last length runs past the end: libheif stops there.
        #expect(units == [Self.sps, Self.sps, [0x42, 0x01, 0xEE]])
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
