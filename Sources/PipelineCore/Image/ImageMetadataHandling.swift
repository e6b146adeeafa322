import Foundation

/// What the decode step does with a file's EXIF and XMP. Stripping is the default, as libvips'
/// `strip`, imgproxy and sharp do for derivatives: EXIF carries where a photo was taken and the
/// camera's serial number, which a thumbnail should not pass on unasked.
public enum ImageMetadataHandling: Hashable, Sendable {
    /// Drops EXIF and XMP from the image, so encoders write none (the default).
    case strip
    /// Keeps EXIF without its GPS IFD and its thumbnail (IFD1, which shows the original picture;
    /// the copyright, artist and camera tags stay) and XMP, unless
    /// the XMP packet holds GPS properties: then it is dropped. Encoders write what is kept, with
    /// the EXIF orientation 1 once the pixels are upright.
    case keep
    /// Keeps EXIF and XMP exactly as decoded, GPS included: for callers that inspect metadata
    /// (`imagepipe info`) or must pass everything on, and say so.
    case keepAll

    @usableFromInline package static let `default` = ImageMetadataHandling.strip

    /// Appended to cache keys when not the default, since the image differs: `Metadata(keep)`.
    package var cacheKeySuffix: String? {
        switch self {
        case .strip: nil
        case .keep: "Metadata(keep)"
        case .keepAll: "Metadata(keepAll)"
        }
    }

    /// `image` with its EXIF and XMP as this handling says.
    package func apply(to image: Image) -> Image {
        let (exif, xmp) = (image.metadata.exif, image.metadata.xmp)
        // What the coder did not read (or left out for its size) is still in the file's bytes.
        let unread = image.metadata.hasUnreadMetadata
        guard exif != nil || xmp != nil || unread, self != .keepAll else { return image }
        var result = image
        switch self {
        case .strip:
            result.metadata.exif = nil
            result.metadata.xmp = nil
        case .keep:
            result.metadata.exif = exif.flatMap(ExifEditor.removingGPSAndThumbnail)
            result.metadata.xmp = xmp.flatMap { Self.mentionsGPS($0) ? nil : $0 }
        case .keepAll:
            break
        }
        // Whatever changed, the file's own bytes no longer stand for this image.
        result.metadata.removedMetadata =
            image.metadata.removedMetadata || unread
            || result.metadata.exif != exif || result.metadata.xmp != xmp
        return result
    }

    /// Whether an XMP packet has GPS properties (`exif:GPSLatitude`, `drone-dji:GpsLongitude`,
    /// `<GPSLatitude xmlns=…>`): any name starting `GPS` after a prefix or a `<`, in any case, in
    /// UTF-8 or (its NULs skipped) UTF-16/32, which XMP also allows. Editing XML is out of scope
    /// here, so such a packet is dropped whole; a false alarm loses the XMP, never a location.
    static func mentionsGPS(_ xmp: Data) -> Bool {
        let needle: [UInt8] = Array(":gps".utf8)
        let bytes = xmp.filter { $0 != 0 }
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == 0x3A || bytes[start] == 0x3C {
            if (1..<needle.count).allSatisfy({ bytes[start + $0] | 0x20 == needle[$0] }) { return true }
        }
        return false
    }
}
