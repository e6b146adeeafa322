import Foundation
import PipelineCore

/// Puts an edit list into an AVIF image sequence made by avifenc (0.11 cannot write one): an
/// `edts` box is inserted into a track's `trak` right after its `tkhd`, and every size and offset
/// the insertion moves is fixed — the sizes of `moov` and that `trak`, the chunk offsets of every
/// track (`stco`/`co64`) and the item locations in `meta` (`iloc`). Written for the layout avifenc
/// produces (32-bit box sizes, `meta` and `moov` before `mdat`); anything else throws.
public enum AVIFEditListWriter {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// An `elst` box of `version` 0 or 1 whose flags carry the repeat bit when `repeats`, with
    /// `entryCount` declared and `entries` entries of `segmentDuration` written (media time 0, rate 1).
    public static func editList(
        version: UInt8 = 0, repeats: Bool, segmentDuration: UInt64, entryCount: UInt32 = 1, entries: Int = 1,
        largeSize: Bool = false
    ) -> [UInt8] {
        var payload: [UInt8] = [version, 0, 0, repeats ? 1 : 0] + bigEndian(UInt64(entryCount), 4)
        for _ in 0..<entries {
            payload += version == 1 ? bigEndian(segmentDuration, 8) + bigEndian(0, 8) : bigEndian(segmentDuration, 4) + bigEndian(0, 4)
            payload += [0, 1, 0, 0]
        }
        return box("elst", payload, largeSize: largeSize)
    }

    /// A box of `type` around `payload`; with `largeSize`, its size in the 64-bit field.
    public static func box(_ type: String, _ payload: [UInt8], largeSize: Bool = false) -> [UInt8] {
        largeSize
            ? bigEndian(1, 4) + Array(type.utf8) + bigEndian(UInt64(payload.count + 16), 8) + payload
            : bigEndian(UInt64(payload.count + 8), 4) + Array(type.utf8) + payload
    }

    /// `avif` with `edts` (a whole box, usually `box("edts", editList(...))`) inserted into track
    /// `track` (0 = the first `trak`), and that track header's duration set to `trackDuration`
    /// when given (`UInt64.max`: indefinite).
    public static func inserting(_ edts: [UInt8], intoTrack track: Int, of avif: Data, trackDuration: UInt64? = nil) throws -> Data {
        var bytes = [UInt8](avif)
        let top = try boxes(bytes, 0..<bytes.count)
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw Failure("no moov") }
        guard let mdat = top.first(where: { $0.type == "mdat" }), mdat.start > moov.start else { throw Failure("mdat before moov") }
        let traks = try boxes(bytes, moov.payload).filter { $0.type == "trak" }
        guard traks.indices.contains(track) else { throw Failure("no track \(track)") }
        guard let tkhd = try boxes(bytes, traks[track].payload).first(where: { $0.type == "tkhd" }) else { throw Failure("no tkhd") }
        let insertion = tkhd.end, delta = edts.count
        if let trackDuration {
            let version1 = bytes[tkhd.payload.lowerBound] == 1
            write(
                version1 ? trackDuration : min(trackDuration, 0xFFFF_FFFF), into: &bytes,
                at: tkhd.payload.lowerBound + (version1 ? 28 : 20), width: version1 ? 8 : 4)
        }
        for trak in traks {
            for stbl in try descendants(bytes, trak, path: ["mdia", "minf", "stbl"]) {
                for table in try boxes(bytes, stbl.payload) where table.type == "stco" || table.type == "co64" {
                    let width = table.type == "co64" ? 8 : 4
                    let count = Int(read(bytes, at: table.payload.lowerBound + 4, width: 4))
                    for entry in 0..<count {
                        let at = table.payload.lowerBound + 8 + entry * width
                        let offset = read(bytes, at: at, width: width)
                        if offset >= UInt64(insertion) { write(offset + UInt64(delta), into: &bytes, at: at, width: width) }
                    }
                }
            }
        }
        if let meta = top.first(where: { $0.type == "meta" }),
            let iloc = try boxes(bytes, meta.payload.lowerBound + 4..<meta.payload.upperBound).first(where: { $0.type == "iloc" })
        {
            try moveItemLocations(&bytes, iloc, from: insertion, by: delta)
        }
        for container in [moov, traks[track]] {
            write(read(bytes, at: container.start, width: 4) + UInt64(delta), into: &bytes, at: container.start, width: 4)
        }
        bytes.insert(contentsOf: edts, at: insertion)
        return Data(bytes)
    }

    /// `iloc` versions 0–2: every file-based extent at or past `insertion` moves by `delta`.
    private static func moveItemLocations(_ bytes: inout [UInt8], _ iloc: Box, from insertion: Int, by delta: Int) throws {
        var at = iloc.payload.lowerBound
        let version = bytes[at]
        at += 4
        let offsetSize = Int(bytes[at] >> 4), lengthSize = Int(bytes[at] & 15), baseSize = Int(bytes[at + 1] >> 4)
        let indexSize = version >= 1 ? Int(bytes[at + 1] & 15) : 0
        at += 2
        let idSize = version < 2 ? 2 : 4
        let count = Int(read(bytes, at: at, width: idSize))
        at += idSize
        for _ in 0..<count {
            at += idSize
            var method = 0
            if version >= 1 {
                method = Int(read(bytes, at: at, width: 2) & 15)
                at += 2
            }
            at += 2
            let baseAt = at, base = read(bytes, at: at, width: baseSize)
            at += baseSize
            let extents = Int(read(bytes, at: at, width: 2))
            at += 2
            for _ in 0..<extents {
                at += indexSize
                let offset = read(bytes, at: at, width: offsetSize)
                if method == 0, base + offset >= UInt64(insertion) {
                    if offsetSize > 0 {
                        write(offset + UInt64(delta), into: &bytes, at: at, width: offsetSize)
                    } else if baseSize > 0 {
                        write(base + UInt64(delta), into: &bytes, at: baseAt, width: baseSize)
                    } else {
                        throw Failure("an iloc extent without an offset field")
                    }
                }
                at += offsetSize + lengthSize
            }
        }
    }

    struct Box {
        let type: String
        let start: Int
        let payload: Range<Int>
        var end: Int { payload.upperBound }
    }

    /// The boxes in `range` as the core's reader sees them, each with its start; only a run of
    /// boxes with 32-bit sizes filling `range` exactly, the layout this writer patches.
    static func boxes(_ bytes: [UInt8], _ range: Range<Int>) throws -> [Box] {
        var start = range.lowerBound
        let boxes = ISOBMFFBox.children(of: bytes, in: range).map { box in
            defer { start = box.payload.upperBound }
            return Box(type: box.type, start: start, payload: box.payload)
        }
        guard boxes.allSatisfy({ read(bytes, at: $0.start, width: 4) == UInt64($0.end - $0.start) }), start == range.upperBound
        else { throw Failure("a box at \(start) this writer does not handle") }
        return boxes
    }

    private static func descendants(_ bytes: [UInt8], _ box: Box, path: [String]) throws -> [Box] {
        guard let type = path.first else { return [box] }
        return try boxes(bytes, box.payload).filter { $0.type == type }.flatMap { try descendants(bytes, $0, path: Array(path.dropFirst())) }
    }

    /// The track header's duration of track `track`, in the movie's timescale.
    public static func trackDuration(track: Int, of avif: Data) throws -> UInt64 {
        let bytes = [UInt8](avif)
        guard let moov = try boxes(bytes, 0..<bytes.count).first(where: { $0.type == "moov" }) else { throw Failure("no moov") }
        let traks = try boxes(bytes, moov.payload).filter { $0.type == "trak" }
        guard traks.indices.contains(track),
            let tkhd = try boxes(bytes, traks[track].payload).first(where: { $0.type == "tkhd" })
        else { throw Failure("no tkhd in track \(track)") }
        let version1 = bytes[tkhd.payload.lowerBound] == 1
        return read(bytes, at: tkhd.payload.lowerBound + (version1 ? 28 : 20), width: version1 ? 8 : 4)
    }

    private static func read(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        (0..<width).reduce(0) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    private static func write(_ value: UInt64, into bytes: inout [UInt8], at offset: Int, width: Int) {
        for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - index))) }
    }

    private static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width)
        write(value, into: &bytes, at: 0, width: width)
        return bytes
    }
}
