import Foundation
import TestSupport
import Testing

@testable import CodersAVIF

/// The edit-list reader on movies built box by box (no AV1 data, no tools needed): which track it
/// reads, both track header versions, and bytes that are not a well-formed movie.
struct AVIFRepetitionTests {
    typealias Writer = AVIFEditListWriter

    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    /// A `trak` with a track header of `version`, a sample entry of `codec`, `chunks` chunk
    /// offsets (in `co64` when `largeOffsets`), an optional `auxl` reference and edit list.
    static func trak(
        id: UInt32, duration: UInt64, version: UInt8 = 0, codec: String = "av01", chunks: UInt32 = 1,
        largeOffsets: Bool = false, auxiliaryTo: UInt32? = nil, elst: [UInt8]? = nil
    ) -> [UInt8] {
        let times =
            version == 1
            ? [UInt8](repeating: 0, count: 16) + u32(id) + u32(0) + u64(duration)
            : [UInt8](repeating: 0, count: 8) + u32(id) + u32(0) + u32(UInt32(truncatingIfNeeded: duration))
        let tkhd = Writer.box("tkhd", [version, 0, 0, 3] + times + [UInt8](repeating: 0, count: 52) + u32(16 << 16) + u32(8 << 16))
        let entry = Writer.box(codec, [UInt8](repeating: 0, count: 78))
        let stsd = Writer.box("stsd", [0, 0, 0, 0] + u32(1) + entry)
        let offsets = Writer.box(largeOffsets ? "co64" : "stco", [0, 0, 0, 0] + u32(chunks) + (0..<chunks).flatMap { _ in largeOffsets ? u64(1) : u32(1) })
        let mdia = Writer.box("mdia", Writer.box("minf", Writer.box("stbl", stsd + offsets)))
        let tref = auxiliaryTo.map { Writer.box("tref", Writer.box("auxl", u32($0))) } ?? []
        let edts = elst.map { Writer.box("edts", $0) } ?? []
        return Writer.box("trak", tkhd + tref + edts + mdia)
    }

    static func movie(_ traks: [UInt8]...) -> Data {
        Data(Writer.box("ftyp", Array("avis".utf8) + u32(0) + Array("avismsf1".utf8)) + Writer.box("moov", traks.flatMap { $0 }))
    }

    static func repeating(_ segment: UInt64, version: UInt8 = 0) -> [UInt8] {
        Writer.editList(version: version, repeats: true, segmentDuration: segment)
    }

    @Test("a version 0 track header and 64-bit chunk offsets are read; 0xFFFFFFFF is an indefinite duration")
    func versionZeroHeader() {
        #expect(AVIFRepetition(Self.movie(Self.trak(id: 1, duration: 250, largeOffsets: true, elst: Self.repeating(100)))) == .count(2))
        #expect(AVIFRepetition(Self.movie(Self.trak(id: 1, duration: 0xFFFF_FFFF, elst: Self.repeating(100)))) == .infinite)
        #expect(AVIFRepetition(Self.movie(Self.trak(id: 1, duration: 300, version: 1, elst: Self.repeating(100, version: 1)))).loopCount == 3)
    }

    @Test("the colour track is the first AV1 track with an ID and chunks that is not auxiliary")
    func colourTrackChoice() {
        let data = Self.movie(
            Self.trak(id: 1, duration: 900, codec: "mp4v", elst: Self.repeating(100)),
            Self.trak(id: 0, duration: 800, elst: Self.repeating(100)),
            Self.trak(id: 2, duration: 700, chunks: 0, elst: Self.repeating(100)),
            Self.trak(id: 3, duration: 600, auxiliaryTo: 4, elst: Self.repeating(100)),
            Self.trak(id: 4, duration: 500, elst: Self.repeating(100)),
            Self.trak(id: 5, duration: 400, elst: Self.repeating(100)))
        #expect(AVIFRepetition(data) == .count(4))
        // An `auxl` naming track 0 names no track.
        #expect(AVIFRepetition(Self.movie(Self.trak(id: 1, duration: 300, auxiliaryTo: 0, elst: Self.repeating(100)))) == .count(2))
    }

    @Test("every truncation of a movie, and bytes that are no movie, give unknown without a crash")
    func truncatedAndGarbage() {
        let whole = Self.movie(Self.trak(id: 1, duration: 300, elst: Self.repeating(100)))
        #expect(AVIFRepetition(whole) == .count(2))
        for length in 0..<whole.count {
            #expect(AVIFRepetition(whole.prefix(length)) == .unknown, "\(length) bytes")
        }
        // A slice that does not start at index 0.
        #expect(AVIFRepetition((Data([1, 2, 3]) + whole).dropFirst(3)) == .count(2))
        // Noise from a fixed seed, bare and inside a moov.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for _ in 0..<200 {
            let noise = (0..<Int(next())).map { _ in next() }
            _ = AVIFRepetition(Data(noise))
            _ = AVIFRepetition(Data(Writer.box("moov", noise)))
            _ = AVIFRepetition(Data(Writer.box("moov", Writer.box("trak", noise))))
        }
        // A moov claiming more bytes than the file has, with a 64-bit size, and one of size 0 (to the end).
        #expect(AVIFRepetition(Data(Self.u32(1) + Array("moov".utf8) + Self.u64(.max) + Array(whole))) == .unknown)
        let toEnd = Self.u32(0) + Array("moov".utf8) + Self.trak(id: 1, duration: 300, elst: Self.repeating(100))
        #expect(AVIFRepetition(Data(toEnd)) == .count(2))
    }
}
