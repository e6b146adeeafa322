import Foundation

/// Reads and edits EXIF data: a TIFF structure (byte order, magic 42, IFD0 offset, then IFDs of
/// 12-byte entries), bare as PNG's `eXIf` and WebP's `EXIF` chunks hold it or after JPEG APP1's
/// `Exif\0\0`. The one EXIF reader of ImagePipe: coders read orientation through it, and the decode
/// and orientation steps edit with it.
///
/// EXIF comes from untrusted files: every offset and count is checked against the bytes before use,
/// IFD chains are followed at most `maxChainedIFDs` deep and never twice to one offset, so hostile
/// data gives nil or an unchanged copy, never a crash or a loop. Edits are made in place, keeping
/// every other byte (and so every offset) as it was.
public struct ExifEditor: Sendable {
    /// The data as given, with the `Exif\0\0` header when it had one, edits applied.
    private(set) var bytes: [UInt8]
    /// Where the TIFF structure starts in `bytes` (6 after `Exif\0\0`, else 0).
    private let base: Int
    private let bigEndian: Bool
    /// Bytes `removeGPS` may still move, zero or scan; see `gpsRemovalBudget`.
    private var workLeft = 0

    static let orientationTag: UInt16 = 0x0112
    static let gpsPointerTag: UInt16 = 0x8825
    static let thumbnailOffsetTag: UInt16 = 0x0201
    static let thumbnailLengthTag: UInt16 = 0x0202
    /// What precedes the TIFF structure in a JPEG APP1 segment: `Exif\0\0`.
    package static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
    /// IFD0, IFD1 (the thumbnail's) and a few more than any real file has.
    static let maxChainedIFDs = 8

    /// Nil when the data does not start like a TIFF structure (after an optional `Exif\0\0`).
    public init?(_ exif: some Collection<UInt8>) {
        bytes = Array(exif)
        base = bytes.starts(with: Self.exifHeader) ? Self.exifHeader.count : 0
        guard bytes.count >= base + 8 else { return nil }
        switch (bytes[base], bytes[base + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        guard uint16(at: 2) == 42 else { return nil }
    }

    /// The bytes without a JPEG `Exif\0\0` header: the TIFF structure PNG, WebP and
    /// `ImageMetadata.exif` hold.
    package var tiffData: Data { Data(bytes[base...]) }

    // MARK: Orientation

    /// The raw Orientation tag (1–8 when valid; files also carry 0 or junk), or nil without a
    /// readable one. Only IFD0 is read: that is where the tag lives.
    package var rawOrientation: Int? {
        guard let ifd = ifd(at: ifd0Offset), let entry = ifd.entry(tagged: Self.orientationTag, in: self),
            let type = uint16(at: entry + 2), let count = uint32(at: entry + 4), count >= 1
        else { return nil }
        switch type {
        case 3: return uint16(at: entry + 8).map(Int.init)  // SHORT, as the spec says
        case 4: return uint32(at: entry + 8).map(Int.init)  // LONG, seen from some writers
        default: return nil
        }
    }

    /// The orientation recorded, or nil without a readable tag. Values outside 1–8 (0 is common)
    /// mean upright, as every viewer treats them.
    package var orientation: ImageOrientation? { rawOrientation.map { ImageOrientation(exifValue: $0) } }

    /// Sets the Orientation tag to 1 (upright) if there is one: for pixels that have been turned.
    mutating func setOrientationUp() {
        guard let ifd = ifd(at: ifd0Offset), let entry = ifd.entry(tagged: Self.orientationTag, in: self),
            let type = uint16(at: entry + 2)
        else { return }
        switch type {
        case 3: write(1, at: entry + 8, size: 2)
        case 4: write(1, at: entry + 8, size: 4)
        default: break
        }
    }

    // MARK: GPS

    /// Removes the GPS IFD pointer (tag 0x8825) from every IFD of the chain and zeroes the GPS
    /// IFD's entries and values where they lie within the data. Everything else (copyright,
    /// artist, camera, the Exif sub-IFD) stays byte for byte. False when IFD0 cannot be read, or
    /// when hostile overlapping IFDs keep producing pointers: the caller cannot know the data is
    /// free of GPS and should drop it.
    @discardableResult
    mutating func removeGPS() -> Bool {
        guard ifd(at: ifd0Offset) != nil else { return false }
        workLeft = Self.gpsRemovalBudget(byteCount: bytes.count)
        // Removing an entry moves bytes, which in crafted data may be another IFD's; so passes
        // repeat until one finds nothing, and a pass that does proves the result clean.
        for _ in 0..<Self.maxGPSRemovalPasses {
            if removeGPSPointersOnce() == 0 { return workLeft >= 0 }
            if workLeft < 0 { return false }
        }
        return false
    }

    /// Work (bytes moved, zeroed or scanned) `removeGPS` allows: a few times the data, so crafted
    /// IFDs whose entries all point at the same large values cannot make it quadratic. Real EXIF
    /// needs a small fraction; running out means the data cannot be shown free of GPS.
    static func gpsRemovalBudget(byteCount: Int) -> Int { 4 * byteCount + 4096 }

    /// Passes over the IFD chain `removeGPS` makes; real data needs one, crafted data two at most.
    static let maxGPSRemovalPasses = 4

    /// One walk of the IFD chain removing GPS pointers; the number removed.
    private mutating func removeGPSPointersOnce() -> Int {
        var removed = 0
        var visited: Set<Int> = []
        var next = ifd0Offset
        while let offset = next, visited.count < Self.maxChainedIFDs, visited.insert(offset).inserted {
            // Read afresh after each removal: the count has dropped and zeroing may have touched it.
            while workLeft >= 0, let ifd = ifd(at: offset), let index = ifd.entryIndex(tagged: Self.gpsPointerTag, in: self) {
                workLeft -= 12 * (ifd.count + 1)
                let entry = ifd.entriesStart + index * 12
                let pointer = uint32(at: entry + 8).map(Int.init)
                removeEntry(index, from: ifd)
                removed += 1
                if let pointer, !visited.contains(pointer) { zeroIFD(at: pointer) }
            }
            guard workLeft >= 0 else { return removed }
            next = self.ifd(at: offset)?.nextOffset(in: self)
        }
        return removed
    }

    /// Zeroes an IFD's entries, count and next pointer, and the out-of-line values its entries
    /// point to, each only where it lies wholly within the data and past the TIFF header.
    private mutating func zeroIFD(at offset: Int) {
        guard let ifd = ifd(at: offset) else { return }
        for index in 0..<ifd.count {
            workLeft -= 12
            guard workLeft >= 0 else { break }
            let entry = ifd.entriesStart + index * 12
            guard let type = uint16(at: entry + 2), let count = uint32(at: entry + 4),
                let size = Self.typeSize(type)
            else { continue }
            let (length, overflow) = Int(count).multipliedReportingOverflow(by: size)
            guard !overflow, length > 4, let valueOffset = uint32(at: entry + 8).map(Int.init) else { continue }
            if zero(valueOffset, length) { workLeft -= length }
        }
        zero(offset, 2 + ifd.count * 12 + 4)
    }

    /// Removes entry `index` from `ifd`: the later entries and the next-IFD pointer move up 12
    /// bytes, the freed 12 at the end are zeroed, and the count drops by one.
    private mutating func removeEntry(_ index: Int, from ifd: IFD) {
        let entry = base + ifd.entriesStart + index * 12
        let tail = min(base + ifd.entriesStart + ifd.count * 12 + 4, bytes.count)
        // Moved in place, front to back: a slice of `bytes` as the source would copy the whole data.
        for position in entry..<max(tail - 12, entry) { bytes[position] = bytes[position + 12] }
        for position in max(tail - 12, entry)..<tail { bytes[position] = 0 }
        write(UInt32(ifd.count - 1), at: ifd.offset, size: 2)
    }

    // MARK: Thumbnail

    /// Removes IFD1, the thumbnail's IFD: zeroes the embedded JPEG thumbnail, the IFD and its
    /// values, and ends IFD0's chain. The thumbnail shows the original picture, uncropped and
    /// unblurred, so EXIF kept beside processed pixels must not carry it.
    mutating func removeThumbnail() {
        guard let ifd0 = ifd(at: ifd0Offset), let ifd1Offset = ifd0.nextOffset(in: self) else { return }
        if let ifd1 = ifd(at: ifd1Offset),
            let offsetEntry = ifd1.entry(tagged: Self.thumbnailOffsetTag, in: self),
            let lengthEntry = ifd1.entry(tagged: Self.thumbnailLengthTag, in: self),
            let start = uint32(at: offsetEntry + 8), let length = uint32(at: lengthEntry + 8)
        {
            zero(Int(start), Int(length))
        }
        workLeft = Self.gpsRemovalBudget(byteCount: bytes.count)
        zeroIFD(at: ifd1Offset)
        write(0, at: ifd0.entriesStart + ifd0.count * 12, size: 4)
    }

    // MARK: Copyright

    /// IFD0's Artist (0x013B) and Copyright (0x8298): the EXIF libvips keeps when it strips for
    /// imgproxy's `keep_copyright`.
    static let copyrightTags: [UInt16] = [0x013B, 0x8298]

    /// A new TIFF structure in this data's byte order holding only IFD0's Artist and Copyright
    /// (ASCII values, copied); nil when it has neither.
    func copyrightOnly() -> Data? {
        guard let ifd0 = ifd(at: ifd0Offset) else { return nil }
        var kept: [(tag: UInt16, value: ArraySlice<UInt8>)] = []
        for tag in Self.copyrightTags {
            guard let entry = ifd0.entry(tagged: tag, in: self), uint16(at: entry + 2) == 2,
                let count = uint32(at: entry + 4).map(Int.init), count > 0,
                case let start = count <= 4 ? entry + 8 : uint32(at: entry + 8).map(Int.init) ?? -1,
                start >= 8, start <= bytes.count - base - count
            else { continue }
            kept.append((tag, bytes[(base + start)..<(base + start + count)]))
        }
        guard !kept.isEmpty else { return nil }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        func append(_ value: Int, size: Int) {
            for index in 0..<size { out.append(UInt8(truncatingIfNeeded: value >> ((bigEndian ? size - 1 - index : index) * 8))) }
        }
        append(42, size: 2)
        append(8, size: 4)
        append(kept.count, size: 2)
        var valueOffset = 8 + 2 + kept.count * 12 + 4
        for (tag, value) in kept {
            append(Int(tag), size: 2)
            append(2, size: 2)
            append(value.count, size: 4)
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                append(valueOffset, size: 4)
                valueOffset += value.count + value.count % 2
            }
        }
        append(0, size: 4)
        for (_, value) in kept where value.count > 4 {
            out += value
            if value.count % 2 == 1 { out.append(0) }
        }
        return Data(out)
    }

    // MARK: TIFF structure

    /// An IFD whose entries all lie within the data.
    private struct IFD {
        let offset: Int
        let count: Int
        var entriesStart: Int { offset + 2 }

        func entryIndex(tagged tag: UInt16, in editor: ExifEditor) -> Int? {
            (0..<count).first { editor.uint16(at: entriesStart + $0 * 12) == tag }
        }

        func entry(tagged tag: UInt16, in editor: ExifEditor) -> Int? {
            entryIndex(tagged: tag, in: editor).map { entriesStart + $0 * 12 }
        }

        func nextOffset(in editor: ExifEditor) -> Int? {
            guard let next = editor.uint32(at: entriesStart + count * 12), next != 0 else { return nil }
            return Int(next)
        }
    }

    private var ifd0Offset: Int? { uint32(at: 4).map(Int.init) }

    /// The IFD at `offset` (from the TIFF header) when its count and entries fit in the data.
    private func ifd(at offset: Int?) -> IFD? {
        guard let offset, offset >= 8, let count = uint16(at: offset).map(Int.init) else { return nil }
        let (end, overflow) = (base + offset + 2).addingReportingOverflow(count * 12)
        guard !overflow, end <= bytes.count else { return nil }
        return IFD(offset: offset, count: count)
    }

    /// Bytes a value of TIFF type `type` takes (BYTE, ASCII, SHORT, LONG, RATIONAL...), or nil.
    static func typeSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    private func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - base - 2 else { return nil }
        let (a, b) = (UInt16(bytes[base + offset]), UInt16(bytes[base + offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - base - 4 else { return nil }
        let b = (0..<4).map { UInt32(bytes[base + offset + $0]) }
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }

    private mutating func write(_ value: UInt32, at offset: Int, size: Int) {
        guard offset >= 0, offset <= bytes.count - base - size else { return }
        for index in 0..<size {
            let shift = bigEndian ? (size - 1 - index) * 8 : index * 8
            bytes[base + offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }

    /// Zeroes `length` bytes at `offset` when they lie within the data past the TIFF header;
    /// whether it did.
    @discardableResult
    private mutating func zero(_ offset: Int, _ length: Int) -> Bool {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard offset >= 8, !overflow, end <= bytes.count - base else { return false }
        for position in (base + offset)..<(base + end) { bytes[position] = 0 }
        return true
    }
}

extension ExifEditor {
    /// The raw Orientation tag in `exif`, or nil; see `rawOrientation`.
    package static func rawOrientation(in exif: some Collection<UInt8>) -> Int? {
        ExifEditor(exif)?.rawOrientation
    }

    /// The orientation `exif` records, or nil; see `orientation`.
    public static func orientation(in exif: some Collection<UInt8>) -> ImageOrientation? {
        ExifEditor(exif)?.orientation
    }

    /// `exif` with its orientation set to 1; unchanged when it has no readable tag.
    static func settingOrientationUp(_ exif: Data) -> Data {
        guard var editor = ExifEditor(exif) else { return exif }
        editor.setOrientationUp()
        return Data(editor.bytes)
    }

    /// `exif` as a TIFF structure with its GPS IFD removed, or nil when it cannot be read (and so
    /// cannot be shown free of GPS).
    public static func removingGPS(_ exif: Data) -> Data? {
        guard var editor = ExifEditor(exif), editor.removeGPS() else { return nil }
        return editor.tiffData
    }

    /// IFD0's Artist and Copyright of `exif` alone, in a new TIFF structure: what imgproxy's
    /// `keep_copyright` keeps of EXIF while stripping. Nil when it has neither, or cannot be read.
    public static func keepingCopyright(_ exif: Data) -> Data? {
        ExifEditor(exif)?.copyrightOnly()
    }

    /// `exif` as a TIFF structure without its GPS IFD and its thumbnail: what `--keep-metadata`
    /// keeps. Nil when it cannot be read.
    static func removingGPSAndThumbnail(_ exif: Data) -> Data? {
        guard var editor = ExifEditor(exif), editor.removeGPS() else { return nil }
        editor.removeThumbnail()
        return editor.tiffData
    }
}
