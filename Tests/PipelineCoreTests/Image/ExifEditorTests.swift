import Foundation
import TestSupport
import Testing

@testable import PipelineCore

@Suite("EXIF reading and editing")
struct ExifEditorTests {
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
        #expect(ExifEditor.rawOrientation(in: tiff) == value)
        #expect(ExifEditor.orientation(in: Array("Exif".utf8) + [0, 0] + tiff) == ImageOrientation(rawValue: value))
    }

    @Test("A LONG-typed tag is accepted; 0 and junk values mean upright")
    func lenientValues() {
        #expect(ExifEditor.rawOrientation(in: Self.tiff(bigEndian: false, entries: [(0x0112, 4, 6)])) == 6)
        #expect(ExifEditor.orientation(in: Self.tiff(bigEndian: true, entries: [(0x0112, 3, 0)])) == .up)
        #expect(ExifEditor.orientation(in: Self.tiff(bigEndian: true, entries: [(0x0112, 3, 77)])) == .up)
    }

    @Test("Malformed data gives no orientation instead of reading out of bounds")
    func malformed() {
        let good = Self.tiff(bigEndian: false, entries: [(0x0112, 3, 6)])
        #expect(ExifEditor.rawOrientation(in: [UInt8]()) == nil)
        #expect(ExifEditor.rawOrientation(in: Array("Exif".utf8) + [0, 0]) == nil)
        for length in 0..<good.count - 6 {
            // Cut anywhere before the value ends: never a crash, never a wrong value.
            let value = ExifEditor.rawOrientation(in: good.prefix(length))
            #expect(value == nil, "cut at \(length)")
        }
        #expect(ExifEditor.rawOrientation(in: Self.tiff(bigEndian: false, entries: [(0x0112, 3, 6)], ifdOffset: 0xFFFF_FFF0)) == nil)
        #expect(ExifEditor.rawOrientation(in: Self.tiff(bigEndian: false, entries: [(0x0110, 3, 6)])) == nil)
        #expect(ExifEditor.rawOrientation(in: Self.tiff(bigEndian: false, entries: [(0x0112, 7, 6)])) == nil)
        var badMagic = good
        badMagic[2] = 43
        #expect(ExifEditor.rawOrientation(in: badMagic) == nil)
        var hugeCount = good
        hugeCount[8] = 0xFF
        hugeCount[9] = 0xFF
        #expect(ExifEditor.rawOrientation(in: hugeCount) == nil || ExifEditor.rawOrientation(in: hugeCount) == 6)
    }

    /// The little-endian uint32 at `offset` of `bytes`.
    static func le32(_ bytes: [UInt8], _ offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << ($1 * 8) }
    }

    @Test("Setting the orientation up writes 1 and leaves every other byte as it was", arguments: [false, true])
    func setsOrientationUp(withHeader: Bool) throws {
        let exif = (withHeader ? Array("Exif".utf8) + [0, 0] : []) + MetadataFixtures.exif(orientation: 6)
        let edited = [UInt8](ExifEditor.settingOrientationUp(Data(exif)))
        #expect(ExifEditor.rawOrientation(in: edited) == 1)
        #expect(zip(exif, edited).filter { $0 != $1 }.count == 1)
        #expect(edited.count == exif.count)
        let bigEndian = Self.tiff(bigEndian: true, entries: [(0x0112, 3, 8)])
        #expect(ExifEditor.rawOrientation(in: ExifEditor.settingOrientationUp(Data(bigEndian))) == 1)
        let long = Self.tiff(bigEndian: true, entries: [(0x0112, 4, 8)])
        #expect(ExifEditor.rawOrientation(in: ExifEditor.settingOrientationUp(Data(long))) == 1)
        // No tag, or no TIFF at all: unchanged.
        let none = Data(Self.tiff(bigEndian: false, entries: [(0x0110, 3, 6)]))
        #expect(ExifEditor.settingOrientationUp(none) == none)
        #expect(ExifEditor.settingOrientationUp(Data([1, 2, 3])) == Data([1, 2, 3]))
    }

    @Test("Removing GPS drops the pointer and zeroes the GPS IFD; copyright, artist and orientation stay")
    func removesGPS() throws {
        let exif = MetadataFixtures.exif(orientation: 6)
        #expect(MetadataFixtures.ifd0Tags(exif) == [0x0112, 0x013B, 0x8298, 0x8825])
        let cleaned = try #require(ExifEditor.removingGPS(Data(Array("Exif".utf8) + [0, 0] + exif)))
        #expect(cleaned.count == exif.count)
        #expect(MetadataFixtures.ifd0Tags(cleaned) == [0x0112, 0x013B, 0x8298])
        #expect(!MetadataFixtures.contains(cleaned, MetadataFixtures.gpsMarker))
        #expect(MetadataFixtures.contains(cleaned, MetadataFixtures.copyright))
        #expect(MetadataFixtures.contains(cleaned, MetadataFixtures.artist))
        #expect(ExifEditor.rawOrientation(in: cleaned) == 6)
        // The latitude's rationals are gone too: nothing past the IFD0 values but zeros.
        let gpsAt = Self.le32(exif, 8 + 2 + 3 * 12 + 8)
        #expect(cleaned[gpsAt...].allSatisfy { $0 == 0 })
        // Data without GPS comes back byte for byte; unreadable data cannot be vouched for.
        #expect(ExifEditor.removingGPS(cleaned) == cleaned)
        #expect(ExifEditor.removingGPS(Data([0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0])) == nil)
        #expect(ExifEditor.removingGPS(Data("not exif".utf8)) == nil)
    }

    @Test("Keeping the copyright makes a new EXIF of IFD0's artist and copyright alone, in the data's byte order")
    func keepsCopyright() throws {
        let exif = MetadataFixtures.exif(orientation: 6)
        let kept = try #require(ExifEditor.keepingCopyright(Data(Array("Exif".utf8) + [0, 0] + exif)))
        #expect(MetadataFixtures.ifd0Tags(kept) == [0x013B, 0x8298])
        #expect(MetadataFixtures.contains(kept, MetadataFixtures.copyright) && MetadataFixtures.contains(kept, MetadataFixtures.artist))
        #expect(!MetadataFixtures.contains(kept, MetadataFixtures.gpsMarker))
        #expect(ExifEditor.rawOrientation(in: kept) == nil)
        #expect(ExifEditor.keepingCopyright(kept) == kept, "already only the copyright: the same bytes")
        // A short value sits in the entry itself; big-endian data stays big-endian.
        var big = Self.tiff(bigEndian: true, entries: [(0x0112, 3, 6), (0x8298, 2, 0x4142_0000)])
        big[8 + 2 + 12 + 4..<8 + 2 + 12 + 8] = [0, 0, 0, 3]  // count 3: "AB\0"
        let short = try #require(ExifEditor.keepingCopyright(Data(big)))
        #expect(short.prefix(2) == Data([0x4D, 0x4D]) && MetadataFixtures.contains(short, "AB"))
        #expect(ExifEditor.keepingCopyright(Data(Self.tiff(bigEndian: false, entries: [(0x0112, 3, 6)]))) == nil, "neither field: no EXIF")
        for length in 0...exif.count { _ = ExifEditor.keepingCopyright(Data(exif.prefix(length))) }
    }

    @Test("Keeping EXIF drops the thumbnail: IFD1 and the JPEG it points to are zeroed, IFD0's chain ends, orientation stays")
    func removesThumbnail() throws {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        let thumbnail: [UInt8] = [0xFF, 0xD8, 1, 2, 3, 4, 5, 6, 0xFF, 0xD9]
        // IFD0 at 8 (orientation 6, next → 26), IFD1 at 26 (thumbnail at 56, 10 bytes), then the JPEG.
        let tiff: [UInt8] =
            [0x49, 0x49] + le16(42) + le32(8)
            + le16(1) + le16(0x0112) + le16(3) + le32(1) + le16(6) + le16(0) + le32(26)
            + le16(2) + le16(0x0201) + le16(4) + le32(1) + le32(56) + le16(0x0202) + le16(4) + le32(1) + le32(10) + le32(0)
            + thumbnail
        let kept = try #require(ExifEditor.removingGPSAndThumbnail(Data(tiff)))
        #expect(kept.count == tiff.count)
        #expect(kept[56..<66].allSatisfy { $0 == 0 })
        #expect(kept[22..<26].allSatisfy { $0 == 0 }, "IFD0's next pointer ends the chain")
        #expect(kept[26..<56].allSatisfy { $0 == 0 }, "IFD1 is zeroed")
        #expect(ExifEditor.rawOrientation(in: kept) == 6)
        #expect(Array(kept[0..<22]) == Array(tiff[0..<22]))
        // Through the handling `--keep-metadata` uses.
        var image = Image(try PixelBuffer(width: 1, height: 1, format: .rgb8, bytes: [0, 0, 0]))
        image.metadata.exif = Data(tiff)
        #expect(ImageMetadataHandling.keep.apply(to: image).metadata.exif == kept)
    }

    @Test("Hostile IFDs are refused or ignored without a crash or a loop")
    func hostileIFDs() throws {
        let exif = MetadataFixtures.exif()
        let ifd0Next = 8 + 2 + 4 * 12
        let gpsPointer = 8 + 2 + 3 * 12 + 8
        func patched(_ offset: Int, _ value: UInt32) -> Data {
            var bytes = exif
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (index * 8)) }
            return Data(bytes)
        }
        // GPS pointer out of range, or pointing at IFD0 itself, or at the header: the pointer goes,
        // nothing else is touched.
        for target: UInt32 in [0xFFFF_FFF0, UInt32(exif.count - 1), 8, 0] {
            let cleaned = try #require(ExifEditor.removingGPS(patched(gpsPointer, target)))
            #expect(MetadataFixtures.ifd0Tags(cleaned) == [0x0112, 0x013B, 0x8298], "GPS pointer \(target)")
            #expect(MetadataFixtures.contains(cleaned, MetadataFixtures.copyright))
        }
        // IFD0's next pointer back to itself, or to the GPS IFD: the chain walk ends.
        for next: UInt32 in [8, UInt32(Self.le32(exif, gpsPointer)), 0xFFFF_FFFF] {
            let cleaned = try #require(ExifEditor.removingGPS(patched(ifd0Next, next)))
            #expect(!(MetadataFixtures.ifd0Tags(cleaned) ?? []).contains(0x8825))
        }
        // Huge entry counts in IFD0 or the GPS IFD; huge value counts in the GPS entries.
        var hugeIFD0 = exif
        (hugeIFD0[8], hugeIFD0[9]) = (0xFF, 0xFF)
        #expect(ExifEditor.removingGPS(Data(hugeIFD0)) == nil)
        var hugeGPS = exif
        let gpsAt = Self.le32(exif, gpsPointer)
        (hugeGPS[gpsAt], hugeGPS[gpsAt + 1]) = (0xFF, 0xFF)
        #expect(try #require(ExifEditor.removingGPS(Data(hugeGPS))).count == exif.count)
        var hugeValues = exif
        for index in 0..<4 { hugeValues[gpsAt + 2 + 12 + 4 + index] = 0xFF }
        #expect(ExifEditor.removingGPS(Data(hugeValues)) != nil)
    }

    @Test("Many GPS pointers to IFDs whose values all cover the same large block are refused, not zeroed again and again")
    func repeatedLargeValuesAreRefused() {
        // IFD0: `pointers` GPS pointers, each to its own IFD of `entries` BYTE values that all
        // cover one `block`-byte run; removing them naively zeroes that run pointers × entries times.
        let (pointers, entries, block) = (100, 10, 100_000)
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        let ifdSize = 2 + entries * 12 + 4
        let firstIFD = 8 + 2 + pointers * 12 + 4
        let blockAt = firstIFD + pointers * ifdSize
        var bytes: [UInt8] = [0x49, 0x49] + le16(42) + le32(8) + le16(pointers)
        for index in 0..<pointers { bytes += le16(0x8825) + le16(4) + le32(1) + le32(firstIFD + index * ifdSize) }
        bytes += le32(0)
        for _ in 0..<pointers {
            bytes += le16(entries)
            for _ in 0..<entries { bytes += le16(1) + le16(1) + le32(block) + le32(blockAt) }
            bytes += le32(0)
        }
        bytes += [UInt8](repeating: 0xAB, count: block)
        #expect(ExifEditor.removingGPS(Data(bytes)) == nil)
    }

    @Test("Every cut and many random corruptions of real EXIF edit without a crash and never keep a GPS pointer")
    func corruptedNeverCrashes() {
        let exif = MetadataFixtures.exif()
        for length in 0...exif.count {
            let cut = Data(exif.prefix(length))
            _ = ExifEditor.settingOrientationUp(cut)
            if let cleaned = ExifEditor.removingGPS(cut) { #expect(!(MetadataFixtures.ifd0Tags(cleaned) ?? []).contains(0x8825)) }
        }
        var generator = SplitMix(seed: 20)
        for _ in 0..<3000 {
            var bytes = exif
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = ExifEditor.rawOrientation(in: bytes)
            _ = ExifEditor.settingOrientationUp(Data(bytes))
            if let cleaned = ExifEditor.removingGPS(Data(bytes)) {
                #expect(!(MetadataFixtures.ifd0Tags(cleaned) ?? []).contains(0x8825))
                #expect(ExifEditor.removingGPS(cleaned) == cleaned)
            }
        }
    }

    /// A seeded generator, so a failure replays.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
