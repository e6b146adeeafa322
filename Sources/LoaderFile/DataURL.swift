import Foundation
import PipelineCore

/// RFC 2397 `data:[<mediatype>][;base64],<data>` URLs.
enum DataURL {
    /// The decoded payload. `maxBytes` is checked on the encoded length first (a decoded payload is
    /// never longer than its text), so a huge URL is refused before any decoding work.
    static func decode(_ string: String, maxBytes: Int64) throws(ImagePipeError) -> Data {
        let text = Array(string.utf8)
        guard text.count >= 5, String(decoding: text[0..<5], as: UTF8.self).lowercased() == "data:",
            let comma = text.firstIndex(of: UInt8(ascii: ","))
        else {
            throw .invalidURL(String(string.prefix(64)))
        }
        let header = String(decoding: text[5..<comma], as: UTF8.self).lowercased()
        let isBase64 = header.split(separator: ";").last == "base64"
        let payload = text[(comma + 1)...]
        let estimated = isBase64 ? Int64(payload.count) / 4 * 3 : Int64(payload.count)
        if estimated > maxBytes {
            throw .limitExceeded(.fileSize, value: Int(clamping: estimated), maximum: Int(clamping: maxBytes))
        }
        guard let bytes = percentDecoded(payload) else {
            throw .invalidURL("data: URL with a malformed percent escape")
        }
        guard isBase64 else { return Data(bytes) }
        // Whitespace is tolerated (URLs get wrapped); any other stray character is an error.
        let stripped = bytes.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard let data = Data(base64Encoded: Data(stripped)) else {
            throw .badImageData(reason: "the data: URL's base64 payload is malformed")
        }
        return data
    }

    /// Byte-wise, because a percent-encoded payload is binary and need not be UTF-8.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
