import Foundation

extension ImageFormat {
    /// The format the bytes say they are, from their first bytes only (never from a file name or a
    /// MIME type, which untrusted sources get wrong).
    ///
    /// Follows SDWebImage's `sd_imageFormatForImageData` table, with two deliberate differences
    /// (listed in the README): JPEG XL's `FF 0A` codestream is told apart before the JPEG rule
    /// (which otherwise takes any leading `FF`), and AVIF's `ftypavif`/`ftypavis` brands are
    /// recognised alongside HEIC's.
    public static func detect(in data: some DataProtocol) -> ImageFormat {
        // Copy at most the header: `DataProtocol` may be non-contiguous, and sniffing needs little.
        let head = Array(data.prefix(32))
        guard let first = head.first else { return .undefined }
        switch first {
        case 0xFF:
            if head.count >= 2, head[1] == 0x0A { return .jxl }
            return .jpeg
        case 0x89: return .png
        case 0x47: return .gif
        case 0x49, 0x4D: return .tiff
        case 0x52:
            if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
                return .webp
            }
        case 0x00:
            guard head.count >= 12 else { return .undefined }
            let brand = String(decoding: head[4..<12], as: UTF8.self)
            switch brand {
            case "ftypheic", "ftypheix", "ftyphevc", "ftyphevx": return .heic
            case "ftypmif1", "ftypmsf1": return .heif
            case "ftypavif", "ftypavis": return .avif
            default: break
            }
            if head.count >= 12, head[0..<12].elementsEqual([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
                return .jxl
            }
        case 0x25:
            if head.count >= 4, head[1..<4].elementsEqual("PDF".utf8) { return .pdf }
        case 0x3C:
            // SVG: the closing tag within the last 100 bytes, as SDWebImage checks.
            let tail = Array(data.suffix(100))
            if Self.contains(tail, "</svg>".utf8) { return .svg }
        case 0x42:
            return .bmp
        default:
            break
        }
        return .undefined
    }

    private static func contains(_ haystack: [UInt8], _ needle: some Collection<UInt8>) -> Bool {
        let needle = Array(needle)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
