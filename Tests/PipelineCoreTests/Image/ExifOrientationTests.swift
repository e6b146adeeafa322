import Foundation
import Testing
@testable import PipelineCore

@Suite("EXIF orientation parsing")
struct ExifOrientationTests {
    /// A TIFF structure with IFD0 holding `entries` (tag, type, value), in either byte order.
    static func tiff(bigEndian: Bool, entries: [(tag: UInt16, type: UInt16, value: UInt32)], ifdOffset: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        var bytes: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(ifdOffset)
        bytes += u16(UInt16(entries.count))
        for entry in entries {
            // SHORT values sit in the first two bytes of the value field.
            let value = entry.type == 3 ? u16(UInt16(entry.value)) + [0, 0] : u32(entry.value)
            bytes += u16(entry.tag) + u16(entry.type) + u32(1) + value
        }
        return bytes + u32(0)
    }

    @Test("The tag is read in both byte orders, with or without the APP1 Exif header", arguments: [false, true], 1...8)
    func readsTag(bigEndian: Bool, value: Int) {
        let tiff = Self.tiff(bigEndian: bigEndian, entries: [(0x010F, 2, 0), (0x0112, 3, UInt32(value)), (0x0131, 2, 0)])
        #expect(ExifOrientation.rawValue(in: tiff) == value)
        #expect(ExifOrientation.orientation(in: Array("Exif".utf8) + [0, 0] + tiff) == ImageOrientation(rawValue: value))
    }

    @Test("A LONG-typed tag is accepted; 0 and junk values mean upright")
    func lenientValues() {
        #expect(ExifOrientation.rawValue(in: Self.tiff(bigEndian: false, entries: [(0x0112, 4, 6)])) == 6)
        #expect(ExifOrientation.orientation(in: Self.tiff(bigEndian: true, entries: [(0x0112, 3, 0)])) == .up)
        #expect(ExifOrientation.orientation(in: Self.tiff(bigEndian: true, entries: [(0x0112, 3, 77)])) == .up)
    }

    @Test("Malformed data gives no orientation instead of reading out of bounds")
    func malformed() {
        let good = Self.tiff(bigEndian: false, entries: [(0x0112, 3, 6)])
        #expect(ExifOrientation.rawValue(in: [UInt8]()) == nil)
        #expect(ExifOrientation.rawValue(in: Array("Exif".utf8) + [0, 0]) == nil)
        for length in 0..<good.count - 6 {
            // Cut anywhere before the value ends: never a crash, never a wrong value.
            let value = ExifOrientation.rawValue(in: good.prefix(length))
            #expect(value == nil, "cut at \(length)")
        }
        #expect(ExifOrientation.rawValue(in: Self.tiff(bigEndian: false, entries: [(0x0112, 3, 6)], ifdOffset: 0xFFFF_FFF0)) == nil)
        #expect(ExifOrientation.rawValue(in: Self.tiff(bigEndian: false, entries: [(0x0110, 3, 6)])) == nil)
        #expect(ExifOrientation.rawValue(in: Self.tiff(bigEndian: false, entries: [(0x0112, 7, 6)])) == nil)
        var badMagic = good
        badMagic[2] = 43
        #expect(ExifOrientation.rawValue(in: badMagic) == nil)
        var hugeCount = good
        hugeCount[8] = 0xFF
        hugeCount[9] = 0xFF
        #expect(ExifOrientation.rawValue(in: hugeCount) == nil || ExifOrientation.rawValue(in: hugeCount) == 6)
    }
}
