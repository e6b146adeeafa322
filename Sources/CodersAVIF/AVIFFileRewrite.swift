import Foundation
import PipelineCore

/// A file's bytes as libavif 0.11 must see them to decode what libavif ≥ 1.0 decodes (Debian ships
/// 0.11; libavif's own tests and the AVIF conformance files now expect 1.x). Each difference is a
/// small edit of the boxes, planned here from the file alone and applied as the decoder handle
/// copies the bytes:
///
/// - A top-level `meta` or `moov` of size 0 ("to the end of the file", which 0.11 refuses) gets
///   its real size written.
/// - Tracks 1.x ignores (audio and other non-picture tracks, auxiliary tracks that are not alpha,
///   `AVIFTrack`) are renamed `free`, which every libavif skips.
/// - Properties that must be essential and are not (`AVIFEssentialProperties`) refuse the file,
///   as 1.x does.
/// - Grids 0.11 assembles otherwise (tile order, alpha per tile: `AVIFGridRewrite`) get a
///   rebuilt `meta`: in place when it has the old one's size and no item data lies inside the
///   old one; else the old one is renamed `free` and the new one appended after the last box.
struct AVIFFileRewrite {
    /// Ranges overwritten in place, each within the file.
    private(set) var patches: [(offset: Int, bytes: [UInt8])] = []
    /// Boxes added after the file's last box.
    private(set) var appended: [UInt8] = []

    /// A top-level box, read from its header alone.
    struct TopLevelBox {
        let type: String
        let start: Int
        let size: Int
        /// The size field says 0: the box runs to the end of the file.
        let sizeIsZero: Bool
    }

    init(_ data: Data) throws(ImagePipeError) {
        let (boxes, reachesEnd) = Self.topLevelBoxes(data)
        for box in boxes where box.sizeIsZero && (box.type == "meta" || box.type == "moov") {
            try writeSize(of: box)
        }
        if let moov = boxes.first(where: { $0.type == "moov" }) {
            try readTracks(Self.copy(moov, of: data), at: moov.start)
        }
        let metas = boxes.filter { $0.type == "meta" }
        guard let meta = metas.first else { return }
        let bytes = Self.copy(meta, of: data)
        guard let root = AVIFBox.children(of: bytes, in: 0..<bytes.count).first else { return }
        let table = AVIFMetaBox(bytes, root)
        try AVIFEssentialProperties.check(table)
        // Two top-level metas are refused by every libavif once it meets the second; a rebuilt
        // one would change which it meets first.
        guard metas.count == 1, let rebuilt = try AVIFGridRewrite.rebuiltMeta(table) else { return }
        if rebuilt.count == meta.size && !Self.hasItemData(table, inside: meta) {
            patches.append((meta.start, rebuilt))
            return
        }
        guard reachesEnd else {
            throw .badImageData(reason: "AVIF file has bytes after its last box, so its grid cannot be rewritten for libavif 0.11")
        }
        patches.append((meta.start + 4, Array("free".utf8)))
        if let last = boxes.last, last.sizeIsZero, last.type != "meta", last.type != "moov" { try writeSize(of: last) }
        appended = rebuilt
    }

    /// How many bytes libavif gets for `data`.
    func count(for data: Data) -> Int { data.count + appended.count }

    /// Writes what libavif gets into `buffer` (`count(for: data)` bytes): `data` with the patches,
    /// then the appended boxes.
    func write(_ data: Data, into buffer: UnsafeMutableRawBufferPointer) {
        data.copyBytes(to: buffer)
        for patch in patches {
            for (index, byte) in patch.bytes.enumerated() { buffer[patch.offset + index] = byte }
        }
        for (index, byte) in appended.enumerated() { buffer[data.count + index] = byte }
    }

    private mutating func writeSize(of box: TopLevelBox) throws(ImagePipeError) {
        guard fits(box.size, 4) else { throw .badImageData(reason: "AVIF '\(box.type)' box of size 0 runs over 4 GiB") }
        patches.append((box.start, bigEndian(box.size, 4)))
    }

    /// Renames the tracks libavif 1.x ignores and checks the properties of each track's `meta`.
    private mutating func readTracks(_ moov: [UInt8], at offset: Int) throws(ImagePipeError) {
        guard let root = AVIFBox.children(of: moov, in: 0..<moov.count).first else { return }
        for trak in AVIFBox.children(of: moov, in: root.payload) where trak.type == "trak" {
            let track = AVIFTrack(moov, trak)
            if let meta = track.meta { try AVIFEssentialProperties.check(AVIFMetaBox(moov, meta)) }
            if track.isIgnoredByLibavif1 { patches.append((offset + trak.typeOffset, Array("free".utf8))) }
        }
    }

    /// Whether an item's data in the file (construction method 0) lies inside `meta`, whose bytes
    /// a rebuilt box would move.
    private static func hasItemData(_ table: AVIFMetaBox, inside meta: TopLevelBox) -> Bool {
        guard let locations = table.locations else { return true }
        return locations.contains { location in
            location.method == 0
                && location.extents.contains { extent in
                    // A length of 0 means "to the end of the file".
                    let end = extent.length == 0 || extent.offset > Int.max - extent.length ? Int.max : extent.offset + extent.length
                    return extent.offset < meta.start + meta.size && end > meta.start
                }
        }
    }

    /// The top-level boxes, each read from its header alone, and whether the last one ends where
    /// the file does (no bytes after it that are not a box).
    static func topLevelBoxes(_ data: Data) -> (boxes: [TopLevelBox], reachesEnd: Bool) {
        var boxes: [TopLevelBox] = []
        var offset = 0
        while offset < data.count, boxes.count < 4096 {
            let start = data.startIndex + offset
            let head = [UInt8](data[start..<start + min(16, data.count - offset)])
            guard let header = ISOBMFFBox.Header(head, at: 0, end: data.count - offset) else { return (boxes, false) }
            boxes.append(TopLevelBox(type: header.type, start: offset, size: header.size, sizeIsZero: head.prefix(4).allSatisfy { $0 == 0 }))
            offset += header.size
        }
        return (boxes, offset == data.count)
    }

    private static func copy(_ box: TopLevelBox, of data: Data) -> [UInt8] {
        let start = data.startIndex + box.start
        return [UInt8](data[start..<start + box.size])
    }
}
