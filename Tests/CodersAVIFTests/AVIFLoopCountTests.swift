import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// The loop count of an image sequence comes from its colour track's edit list, as libavif ≥ 1.0
/// reads it: avifenc's sequence gets an `edts/elst` box inserted by hand (sizes and offsets fixed),
/// and the file must still decode frame for frame.
@Suite(.enabled(if: AVIFFixtures.toolsInstalled, AVIFFixtures.missingTools))
struct AVIFLoopCountTests {
    let sample = AVIFFixtures.animated
    typealias Writer = AVIFEditListWriter

    /// The sample with `elst` in track `track` (0: colour, 1: alpha) and that track's duration set.
    func withEditList(_ elst: [UInt8], track: Int = 0, trackDuration: UInt64? = nil, into data: Data? = nil) throws -> Data {
        try Writer.inserting(Writer.box("edts", elst), intoTrack: track, of: data ?? sample.data(), trackDuration: trackDuration)
    }

    func loopCount(_ data: Data) throws -> Int {
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.isAnimated && image.frameCount == sample.frames)
        return image.loopCount
    }

    /// The track's own duration, which avifenc writes: one pass of the animation.
    var segment: UInt64 { get throws { try Writer.trackDuration(track: 0, of: sample.data()) } }

    @Test("the repeat flag plays the segment until the track duration is filled, rounding up")
    func repeatedSegment() throws {
        let segment = try segment
        #expect(segment > 0)
        for version: UInt8 in [0, 1] {
            let elst = Writer.editList(version: version, repeats: true, segmentDuration: segment)
            #expect(try loopCount(withEditList(elst, trackDuration: 3 * segment)) == 3, "elst version \(version)")
            #expect(try loopCount(withEditList(elst, trackDuration: 2 * segment + 1)) == 3, "elst version \(version), rounded up")
            #expect(try loopCount(withEditList(elst, trackDuration: segment)) == 1, "elst version \(version), one pass")
        }
        let largeSize = Writer.editList(version: 1, repeats: true, segmentDuration: segment, largeSize: true)
        #expect(try loopCount(withEditList(largeSize, trackDuration: 5 * segment)) == 5)
    }

    @Test("the repeat flag with an indefinite track duration, or more than Int32.max repeats, loops forever")
    func indefinite() throws {
        let elst = Writer.editList(repeats: true, segmentDuration: 1)
        #expect(try loopCount(withEditList(elst, trackDuration: .max)) == 0)
        #expect(try loopCount(withEditList(elst, trackDuration: UInt64(Int32.max) + 2)) == 0)
        #expect(try loopCount(withEditList(elst, trackDuration: UInt64(Int32.max) + 1)) == Int(Int32.max) + 1)
    }

    @Test("an edit list without the repeat flag plays once")
    func noRepeatFlag() throws {
        let segment = try segment
        let elst = Writer.editList(repeats: false, segmentDuration: segment)
        #expect(try loopCount(withEditList(elst, trackDuration: 4 * segment)) == 1)
        // libavif reads nothing past the flags then.
        #expect(try loopCount(withEditList(Writer.box("elst", [0, 0, 0, 0]))) == 1)
    }

    @Test("without an edit list in the colour track a sequence loops forever, whatever the alpha track says")
    func noEditList() throws {
        #expect(try loopCount(sample.data()) == 0)
        let segment = try segment
        let alphaOnly = try withEditList(Writer.editList(repeats: true, segmentDuration: segment), track: 1, trackDuration: 4 * segment)
        #expect(try loopCount(alphaOnly) == 0)
        let both = try withEditList(Writer.editList(repeats: false, segmentDuration: segment), track: 0, into: alphaOnly)
        #expect(try loopCount(both) == 1)
    }

    @Test("a corrupt, truncated or absurd edit list counts as unknown: the sequence decodes and loops forever")
    func hostileEditLists() throws {
        let segment = try segment
        let elst = { (count: UInt32, entries: Int) in Writer.editList(repeats: true, segmentDuration: segment, entryCount: count, entries: entries) }
        let cases: [(String, [UInt8], UInt64?)] = [
            ("huge entry count", elst(.max, 1), 3 * segment),
            ("two entries", elst(2, 2), 3 * segment),
            ("no entry", elst(1, 0), 3 * segment),
            ("truncated segment duration", Array(elst(1, 1).dropLast(10)).adjustingSize(by: -10), 3 * segment),
            ("zero segment", Writer.editList(repeats: true, segmentDuration: 0), 3 * segment),
            ("version 2", Writer.editList(version: 2, repeats: true, segmentDuration: segment), 3 * segment),
            ("zero track duration", Writer.editList(repeats: true, segmentDuration: segment), 0),
            ("elst larger than its edts", Writer.box("elst", [0, 0, 0, 1, 0, 0, 0, 1]).adjustingSize(by: 0x7FFF_0000), 3 * segment),
            ("64-bit size past the end", [0, 0, 0, 1] + Array("elst".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0], 3 * segment),
            ("two edit lists", elst(1, 1) + elst(1, 1), 3 * segment),
            ("no edit list in edts", Writer.box("free", []), 3 * segment),
        ]
        for (name, contents, duration) in cases {
            let data = try Writer.inserting(Writer.box("edts", contents), intoTrack: 0, of: sample.data(), trackDuration: duration)
            #expect(try loopCount(data) == 0, "\(name)")
        }
    }

    @Test("a sequence with an inserted edit list decodes to the same frames, for avifdec too")
    func framesUnchanged() throws {
        let segment = try segment
        let data = try withEditList(Writer.editList(version: 1, repeats: true, segmentDuration: segment), trackDuration: 2 * segment)
        let url = ToolFixtures.folder.appendingPathComponent("\(UUID().uuidString)-loop-twice.avif")
        defer { try? FileManager.default.removeItem(at: url) }
        try data.write(to: url)
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.loopCount == 2)
        for index in 0..<sample.frames {
            let reference = try AVIFFixtures.reference(sample, index: index)
            #expect(try image.frame(at: index).converted(to: .rgba8).bytes == reference.rgba, "frame \(index)")
            let edited = try ToolFixtures.reference(tool: "avifdec", ["-d", "8", "--index", "\(index)"], input: url)
            #expect(edited.rgba == reference.rgba, "avifdec, frame \(index)")
        }
        // Under the major brand `avif`, libavif decodes the primary item through `iloc`, whose
        // offsets the insertion moved as well.
        func primaryItem(_ file: Data) throws -> [UInt8] {
            var file = file
            file.replaceSubrange(8..<12, with: Array("avif".utf8))
            let still = try AVIFCoder().decode(file, options: ImageDecodeOptions())
            #expect(!still.isAnimated)
            return still.firstFrame.converted(to: .rgba8).bytes
        }
        #expect(try primaryItem(data) == primaryItem(sample.data()))
    }
}

extension Array where Element == UInt8 {
    /// A box whose 32-bit size field is changed by `delta`, its contents left as they are.
    func adjustingSize(by delta: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: Int(self[0..<4].reduce(0) { $0 << 8 | UInt32($1) }) + delta)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + self[4...]
    }
}
