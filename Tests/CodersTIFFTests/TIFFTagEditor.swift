import Foundation

/// Rewrites the first directory of a little-endian classic TIFF with tags added or replaced: the
/// new directory goes at the end of the file (values over 4 bytes after it) and the header points
/// to it; everything the old one pointed to stays where it was. For files no tool here writes
/// (a lying size, an embedded profile).
enum TIFFTagEditor {
    /// `tags`: (tag, TIFF type, value bytes, little-endian). BYTE/UNDEFINED values are any length;
    /// SHORT and LONG values one each.
    static func adding(_ tags: [(UInt16, UInt16, Data)], to data: Data) -> Data {
        var bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        precondition(bytes[0] == 0x49 && bytes[1] == 0x49, "little-endian TIFFs only")
        let ifd = u32(4)
        let count = u16(ifd)
        var entries: [UInt16: [UInt8]] = [:]
        for i in 0..<count {
            let at = ifd + 2 + 12 * i
            entries[UInt16(u16(at))] = Array(bytes[at..<at + 12])
        }
        let next = u32(ifd + 2 + 12 * count)
        if bytes.count % 2 == 1 { bytes.append(0) }
        let newIFD = bytes.count
        let total = Set(entries.keys).union(tags.map(\.0)).count
        let blobAt = newIFD + 2 + 12 * total + 4
        var blobs: [UInt8] = []
        for (tag, type, value) in tags {
            let size = type == 3 ? 2 : (type == 4 ? 4 : 1)
            var entry = le16(Int(tag)) + le16(Int(type)) + le32(value.count / size)
            if value.count <= 4 {
                entry += Array(value) + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                entry += le32(blobAt + blobs.count)
                blobs += Array(value)
                if blobs.count % 2 == 1 { blobs.append(0) }
            }
            entries[tag] = entry
        }
        bytes += le16(total)
        for tag in entries.keys.sorted() { bytes += entries[tag]! }
        bytes += le32(next)
        precondition(bytes.count == blobAt)
        bytes += blobs
        bytes.replaceSubrange(4..<8, with: le32(newIFD))
        return Data(bytes)
    }

    static func long(_ value: Int) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]) }
}
