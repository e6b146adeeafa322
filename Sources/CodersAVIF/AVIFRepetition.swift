import Foundation
import PipelineCore

/// How often an image sequence repeats, read from the edit list (`moov/trak/edts/elst`) of the
/// track libavif decodes, as libavif ≥ 1.0 computes `avifDecoder.repetitionCount` (libavif 0.11
/// does not read edit lists). Every size, count and offset is checked; nothing is allocated by a
/// declared count, and only the `moov` box is copied out of the file.
enum AVIFRepetition: Equatable {
    /// The sequence repeats this many times after it has played once.
    case count(Int)
    /// Repeats forever: the repeat flag with an indefinite track duration, or a count too large
    /// for an `Int32`.
    case infinite
    /// No edit list, or boxes libavif ≥ 1.0 would refuse (it then fails the whole file; libavif
    /// 0.11 decodes it).
    case unknown

    /// Times to play, 0 = forever, the convention of `AnimatedImageProvider.loopCount`. An unknown
    /// count plays forever, as Chromium plays it, so files without an edit list keep looping.
    var loopCount: Int {
        switch self {
        case .count(let repetitions): repetitions + 1
        case .infinite, .unknown: 0
        }
    }

    /// The repetition of `data`'s colour track.
    init(_ data: Data) {
        guard let moov = Self.movieBox(data), let track = Self.colourTrack(in: moov) else {
            self = .unknown
            return
        }
        self = track.repetition
    }

    /// The first top-level `moov` box's bytes, found by reading each top-level header alone.
    private static func movieBox(_ data: Data) -> [UInt8]? {
        var offset = 0
        for _ in 0..<4096 {
            let start = data.startIndex + offset
            let head = [UInt8](data[start..<start + min(16, data.count - offset)])
            guard let header = ISOBMFFBox.Header(head, at: 0, end: data.count - offset) else { return nil }
            if header.type == "moov" { return [UInt8](data[start..<start + header.size]) }
            offset += header.size
        }
        return nil
    }

    /// The track libavif ≥ 1.0 decodes (`avifDecoderReset`): the first with a track ID, an `av01`
    /// sample entry and at least one chunk that is not an auxiliary (alpha) track.
    private static func colourTrack(in moov: [UInt8]) -> Track? {
        guard let root = ISOBMFFBox.Header(moov, at: 0, end: moov.count) else { return nil }
        return ISOBMFFBox.children(of: moov, in: root.length..<root.size).lazy
            .filter { $0.type == "trak" }
            .map { Track(moov, $0) }
            .first { $0.id != 0 && $0.isAV1 && $0.hasChunks && !$0.isAuxiliary }
    }

    /// What one `trak` says about itself, read as libavif reads it.
    private struct Track {
        var id = 0
        var isAV1 = false
        var hasChunks = false
        var isAuxiliary = false
        /// The `tkhd` duration in the movie's timescale, `.max` when indefinite; nil when the
        /// header is missing, repeated or unreadable.
        var duration: UInt64?
        var editBoxes: [ISOBMFFBox] = []
        let bytes: [UInt8]

        init(_ bytes: [UInt8], _ trak: ISOBMFFBox) {
            self.bytes = bytes
            let children = ISOBMFFBox.children(of: bytes, in: trak.payload)
            let headers = children.filter { $0.type == "tkhd" }
            if headers.count == 1 { readHeader(headers[0]) }
            editBoxes = children.filter { $0.type == "edts" }
            if let tref = children.first(where: { $0.type == "tref" }) {
                // `auxl` names the track this one is auxiliary to (libavif takes the first ID).
                for reference in ISOBMFFBox.children(of: bytes, in: tref.payload) where reference.type == "auxl" {
                    var reader = ISOBMFFBytes(bytes, reference.payload)
                    if let to = reader.u32(), to != 0 { isAuxiliary = true }
                }
            }
            guard let mdia = children.first(where: { $0.type == "mdia" }),
                let minf = ISOBMFFBox.child("minf", of: bytes, in: mdia.payload),
                let stbl = ISOBMFFBox.child("stbl", of: bytes, in: minf.payload)
            else { return }
            for box in ISOBMFFBox.children(of: bytes, in: stbl.payload) {
                var reader = ISOBMFFBytes(bytes, box.payload)
                switch box.type {
                case "stco", "co64":
                    if reader.skip(4), let count = reader.u32(), count > 0 { hasChunks = true }
                case "stsd":
                    // Version and flags, entry count, then one box per sample entry.
                    guard reader.skip(4), let count = reader.u32() else { continue }
                    let entries = ISOBMFFBox.children(of: bytes, in: reader.position..<box.payload.upperBound)
                    if entries.prefix(count).contains(where: { $0.type == "av01" }) { isAV1 = true }
                default:
                    continue
                }
            }
        }

        private mutating func readHeader(_ tkhd: ISOBMFFBox) {
            var reader = ISOBMFFBytes(bytes, tkhd.payload)
            guard let header = reader.versionAndFlags() else { return }
            switch header.version {
            case 0:
                guard reader.skip(8), let id = reader.u32(), reader.skip(4), let value = reader.u32() else { return }
                self.id = id
                duration = value == 0xFFFF_FFFF ? .max : UInt64(value)
            case 1:
                guard reader.skip(16), let id = reader.u32(), reader.skip(4), let value = reader.u64() else { return }
                self.id = id
                duration = value
            default:
                return
            }
        }

        /// libavif ≥ 1.0 (`avifParseEditListBox`, end of `avifParseTrackBox`): without the repeat
        /// flag the edit plays once; with it, the single entry's segment repeats until the track
        /// duration is filled, rounding up, and forever when that duration is indefinite.
        var repetition: AVIFRepetition {
            guard editBoxes.count == 1, let duration else { return .unknown }
            let lists = ISOBMFFBox.children(of: bytes, in: editBoxes[0].payload).filter { $0.type == "elst" }
            guard lists.count == 1 else { return .unknown }
            var reader = ISOBMFFBytes(bytes, lists[0].payload)
            guard let header = reader.versionAndFlags() else { return .unknown }
            guard header.flags & 1 == 1 else { return .count(0) }
            guard reader.u32() == 1 else { return .unknown }
            let segment: UInt64?
            switch header.version {
            case 0: segment = reader.u32().map { UInt64($0) }
            case 1: segment = reader.u64()
            default: segment = nil
            }
            guard let segment, segment > 0 else { return .unknown }
            if duration == .max { return .infinite }
            guard duration > 0 else { return .unknown }
            let plays = duration / segment + (duration % segment == 0 ? 0 : 1)
            return plays - 1 > UInt64(Int32.max) ? .infinite : .count(Int(plays - 1))
        }
    }
}
