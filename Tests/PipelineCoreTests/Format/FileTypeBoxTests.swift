import Foundation
import Testing

@testable import PipelineCore

struct FileTypeBoxTests {
    static func box(_ major: String, _ compatible: [String], size: Int? = nil) -> Data {
        let length = size ?? 16 + 4 * compatible.count
        return Data([0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0] + Array(compatible.joined().utf8))
    }

    @Test("reads the major and compatible brands")
    func brands() throws {
        let box = try #require(FileTypeBox(Self.box("heic", ["mif1", "heic", "miaf"])))
        #expect(box.majorBrand == "heic")
        #expect(box.compatibleBrands == ["mif1", "heic", "miaf"])
        #expect(box.brands == ["heic", "mif1", "heic", "miaf"])
    }

    @Test("reads at most the first 64 bytes of a long brand list")
    func longList() throws {
        let box = try #require(FileTypeBox(Self.box("mif1", Array(repeating: "avif", count: 40))))
        #expect(box.compatibleBrands.count == 12)
    }

    @Test(
        "refuses what is not a whole ftyp box",
        arguments: [
            Data(), Data("RIFF\0\0\0\0WEBPVP8 ".utf8), box("avif", [], size: 8), box("avif", ["mif1"], size: 22),
        ])
    func refuses(_ data: Data) {
        #expect(FileTypeBox(data) == nil)
    }
}
