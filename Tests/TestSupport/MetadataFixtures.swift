import Foundation

/// EXIF and XMP made in the tests, and files carrying them: a little-endian TIFF structure whose
/// IFD0 holds Orientation, Artist, Copyright and a GPS IFD pointer, the GPS IFD holding a latitude
/// and a map datum whose text (`gpsMarker`) no output may contain.
public enum MetadataFixtures {
    public static let copyright = "(c) ImagePipe Test Photographer"
    public static let artist = "Test Artist"
    /// Text only the GPS IFD holds (its GPSMapDatum).
    public static let gpsMarker = "SECRET-GPS-DATUM"
    /// Text only the XMP packet holds.
    public static let xmpMarker = "ImagePipe XMP rights"

    public static let orientationTag: UInt16 = 0x0112
    public static let gpsPointerTag: UInt16 = 0x8825

    /// The TIFF structure described above, with Orientation `orientation`.
    public static func exif(orientation: UInt16 = 6) -> [UInt8] {
        let artistText = Array(artist.utf8) + [0]
        let copyrightText = Array(copyright.utf8) + [0]
        let datumText = Array(gpsMarker.utf8) + [0]
        // Layout: header 8, IFD0 (4 entries) at 8, its values, then the GPS IFD and its values.
        let ifd0Size = 2 + 4 * 12 + 4
        let artistAt = 8 + ifd0Size
        let copyrightAt = artistAt + artistText.count
        let gpsAt = copyrightAt + copyrightText.count + (copyrightAt + copyrightText.count) % 2
        let gpsSize = 2 + 3 * 12 + 4
        let latitudeAt = gpsAt + gpsSize
        let datumAt = latitudeAt + 24
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        bytes += le16(4)
        bytes += entry(orientationTag, type: 3, count: 1, value: le16(orientation) + [0, 0])
        bytes += entry(0x013B, type: 2, count: artistText.count, value: le32(artistAt))
        bytes += entry(0x8298, type: 2, count: copyrightText.count, value: le32(copyrightAt))
        bytes += entry(gpsPointerTag, type: 4, count: 1, value: le32(gpsAt))
        bytes += le32(0)
        bytes += artistText + copyrightText
        if bytes.count < gpsAt { bytes.append(0) }
        bytes += le16(3)
        bytes += entry(0x0001, type: 2, count: 2, value: Array("N".utf8) + [0, 0, 0])
        bytes += entry(0x0002, type: 5, count: 3, value: le32(latitudeAt))
        bytes += entry(0x0012, type: 2, count: datumText.count, value: le32(datumAt))
        bytes += le32(0)
        for (numerator, denominator) in [(51, 1), (30, 1), (2612, 100)] { bytes += le32(numerator) + le32(denominator) }
        bytes += datumText
        return bytes
    }

    /// An XMP packet with a `dc:rights` holding `xmpMarker`; `withGPS` adds an `exif:GPSLatitude`.
    public static func xmp(withGPS: Bool = false) -> [UInt8] {
        let gps = withGPS ? " exif:GPSLatitude=\"51,30.4N\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\"" : ""
        return Array(
            """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""\
             xmlns:dc="http://purl.org/dc/elements/1.1/"\(gps)><dc:rights>\(xmpMarker)</dc:rights></rdf:Description>\
            </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """.utf8)
    }

    /// `jpeg` with APP1 EXIF and APP1 XMP segments right after SOI, as cameras write them.
    public static func jpeg(_ jpeg: Data, exif: [UInt8]?, xmp: [UInt8]?) -> Data {
        var segments: [UInt8] = []
        if let exif { segments += app1(Array("Exif".utf8) + [0, 0] + exif) }
        if let xmp { segments += app1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmp) }
        return Data(jpeg.prefix(2)) + segments + jpeg.dropFirst(2)
    }

    /// Text only metadata the coders do not read holds (IPTC, comments, text chunks…).
    public static let unreadMarker = "SECRET-UNREAD-METADATA"

    /// `jpeg` with `segments` (marker, payload) right after SOI.
    public static func jpeg(_ jpeg: Data, segments: [(marker: UInt8, payload: [UInt8])]) -> Data {
        var framed: [UInt8] = []
        for (marker, payload) in segments {
            framed += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return Data(jpeg.prefix(2)) + framed + jpeg.dropFirst(2)
    }

    /// An APP13 payload as Photoshop writes IPTC: one 8BIM resource 0x0404 holding an IPTC
    /// caption (2:120) of `unreadMarker`.
    public static func iptcPayload() -> [UInt8] {
        let caption = Array(unreadMarker.utf8)
        let iptc: [UInt8] = [0x1C, 0x02, 0x78, 0, UInt8(caption.count)] + caption
        return Array("Photoshop 3.0".utf8) + [0] + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
            + ColorFixtures.bigEndian(UInt32(iptc.count)) + iptc
    }

    /// `png` with an eXIf chunk and an uncompressed iTXt XMP chunk right after IHDR.
    public static func png(_ png: Data, exif: [UInt8]?, xmp: [UInt8]?) -> Data {
        var result = png
        if let xmp { result = ColorFixtures.insertPNGChunk("iTXt", payload: Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp, into: result) }
        if let exif { result = ColorFixtures.insertPNGChunk("eXIf", payload: exif, into: result) }
        return result
    }

    /// A simple-format `webP` (one VP8 or VP8L chunk) rewritten as an extended file: VP8X with the
    /// EXIF and XMP flags, the image chunk, then EXIF and XMP chunks, as the container places them.
    public static func webP(_ webP: Data, exif: [UInt8]?, xmp: [UInt8]?, width: Int, height: Int) -> Data {
        let flags: UInt8 = (exif == nil ? 0 : 0x08) | (xmp == nil ? 0 : 0x04)
        var body: [UInt8] = Array("VP8X".utf8) + ColorFixtures.littleEndian(10) + [flags, 0, 0, 0]
        body += ColorFixtures.littleEndian24(width - 1) + ColorFixtures.littleEndian24(height - 1)
        body += Array(webP.dropFirst(12))
        for (fourCC, payload) in [("EXIF", exif), ("XMP ", xmp)] {
            guard let payload else { continue }
            body += Array(fourCC.utf8) + ColorFixtures.littleEndian(UInt32(payload.count)) + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Data(Array("RIFF".utf8) + ColorFixtures.littleEndian(UInt32(4 + body.count)) + Array("WEBP".utf8) + body)
    }

    /// The tags of IFD0 of a little-endian TIFF structure (after an optional `Exif\0\0`), read
    /// independently of the code under test; nil when it is not one.
    public static func ifd0Tags(_ exif: some Collection<UInt8>) -> [UInt16]? {
        var bytes = Array(exif)
        if bytes.starts(with: Array("Exif".utf8) + [0, 0]) { bytes.removeFirst(6) }
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x49 else { return nil }
        let ifd = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard ifd + 2 <= bytes.count else { return nil }
        let count = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
        guard ifd + 2 + count * 12 <= bytes.count else { return nil }
        return (0..<count).map { UInt16(bytes[ifd + 2 + $0 * 12]) | UInt16(bytes[ifd + 3 + $0 * 12]) << 8 }
    }

    /// Whether `data` contains `text`'s bytes anywhere.
    public static func contains(_ data: some Collection<UInt8>, _ text: String) -> Bool {
        let bytes = Array(data), needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    private static func entry(_ tag: UInt16, type: UInt16, count: Int, value: [UInt8]) -> [UInt8] {
        le16(tag) + le16(type) + le32(count) + value
    }

    private static func app1(_ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le16(_ value: Int) -> [UInt8] { le16(UInt16(value)) }
    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
}
