/// Reads the Orientation tag (0x0112) from EXIF data: a JPEG APP1 payload (`Exif\0\0` then a TIFF
/// structure), or a bare TIFF structure as PNG's `eXIf` and WebP's `EXIF` chunks hold it.
///
/// EXIF comes from untrusted files, so every offset is checked against the bytes before it is
/// read; malformed data gives nil, never a crash. Only IFD0 is read: that is where the tag lives.
public enum ExifOrientation {
    /// The raw tag value (1–8 when valid; files also carry 0 or junk), or nil when the data has no
    /// readable Orientation tag.
    public static func rawValue(in exif: some Collection<UInt8>) -> Int? {
        var bytes = Array(exif)
        if bytes.starts(with: exifHeader) { bytes.removeFirst(exifHeader.count) }
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        let reader = TIFFReader(bytes: bytes, bigEndian: bigEndian)
        guard reader.uint16(at: 2) == 42, let ifd = reader.uint32(at: 4).map(Int.init),
              let entryCount = reader.uint16(at: ifd).map(Int.init)
        else { return nil }
        for index in 0..<entryCount {
            // Each IFD entry: tag (2), type (2), count (4), value or offset (4).
            let (entryOffset, overflow) = (ifd + 2).addingReportingOverflow(index * 12)
            guard !overflow, let tag = reader.uint16(at: entryOffset) else { return nil }
            guard tag == orientationTag else { continue }
            guard let type = reader.uint16(at: entryOffset + 2), let count = reader.uint32(at: entryOffset + 4), count >= 1
            else { return nil }
            switch type {
            case 3: return reader.uint16(at: entryOffset + 8).map(Int.init)  // SHORT, as the spec says
            case 4: return reader.uint32(at: entryOffset + 8).map(Int.init)  // LONG, seen from some writers
            default: return nil
            }
        }
        return nil
    }

    /// The orientation the data records, or nil without a readable tag. Values outside 1–8
    /// (0 is common) mean upright, as every viewer treats them.
    public static func orientation(in exif: some Collection<UInt8>) -> ImageOrientation? {
        rawValue(in: exif).map { ImageOrientation(exifValue: $0) }
    }

    static let orientationTag = 0x0112
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    private struct TIFFReader {
        let bytes: [UInt8]
        let bigEndian: Bool

        func uint16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset <= bytes.count - 2 else { return nil }
            let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func uint32(at offset: Int) -> UInt32? {
            guard offset >= 0, offset <= bytes.count - 4 else { return nil }
            let b = (0..<4).map { UInt32(bytes[offset + $0]) }
            return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
    }
}
