import Testing

@testable import PipelineCore

/// The box reader the HEIF and AVIF coders share: sizes are never trusted.
struct ISOBMFFBoxTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = payload.count + 8
        return [0, 0, UInt8(size >> 8), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }

    @Test("boxes of 32-bit size, 64-bit size and size 0 (to the end) are read in order")
    func sizes() {
        let large: [UInt8] = [0, 0, 0, 1] + Array("larg".utf8) + [0, 0, 0, 0, 0, 0, 0, 18, 0xAA, 0xBB]
        let bytes = Self.box("one ", [1, 2, 3]) + large + [0, 0, 0, 0] + Array("rest".utf8) + [9, 9]
        let boxes = ISOBMFFBox.children(of: bytes, in: 0..<bytes.count)
        #expect(boxes.map(\.type) == ["one ", "larg", "rest"])
        #expect(boxes.map(\.payload) == [8..<11, 27..<29, 37..<39])
        #expect(ISOBMFFBox.child("larg", of: bytes, in: 0..<bytes.count)?.payload == 27..<29)
    }

    @Test("reading stops at a box that claims more than its range, a header cut short, or a range past the array")
    func malformed() {
        let good = Self.box("good", [1])
        let tooLong: [UInt8] = [0, 0, 0, 200] + Array("long".utf8)
        let tooShort: [UInt8] = [0, 0, 0, 4] + Array("shrt".utf8)
        let hugeLarge: [UInt8] = [0, 0, 0, 1] + Array("huge".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        for bad in [tooLong, tooShort, hugeLarge] {
            let bytes = good + bad + good
            #expect(ISOBMFFBox.children(of: bytes, in: 0..<bytes.count).map(\.type) == ["good"])
        }
        let cut = good + [0, 0, 0, 9, 0x61]
        #expect(ISOBMFFBox.children(of: cut, in: 0..<cut.count).map(\.type) == ["good"])
        #expect(ISOBMFFBox.children(of: good, in: 0..<1000).map(\.type) == ["good"])
        #expect(ISOBMFFBox.children(of: good, in: 9..<9).isEmpty)
        #expect(ISOBMFFBox.Header(good, at: 5, end: 3) == nil)
        #expect(ISOBMFFBox.Header(good, at: -1, end: 9) == nil)
    }

    @Test("a header alone, with the end of its box beyond the array, gives the box's size")
    func headerOnly() throws {
        let header = try #require(ISOBMFFBox.Header([0, 0, 0x10, 0] + Array("mdat".utf8), at: 0, end: 5000))
        #expect(header.type == "mdat" && header.length == 8 && header.size == 4096)
        #expect(ISOBMFFBox.Header([0, 0, 0x10, 0] + Array("mdat".utf8), at: 0, end: 4095) == nil)
    }

    @Test("field reads stop at the range's end; 64-bit fields above Int.max need u64")
    func fields() {
        var reader = ISOBMFFBytes([1, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 7], 0..<12)
        let header = reader.versionAndFlags()
        #expect(header?.version == 1 && header?.flags == 1)
        var copy = reader
        #expect(copy.uint(8) == nil)
        #expect(reader.u64() == .max)
        #expect(reader.u8() == nil && !reader.skip(1) && reader.fourCC() == nil)
    }
}
