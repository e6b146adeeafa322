import Foundation

/// One identifier per request: the client's `X-Request-ID` when it is well-formed (1–128 letters,
/// digits and `-_.:`, as a proxy in front would send), a new one otherwise. It goes back as
/// `X-Request-ID` and into every log line about the request.
enum RequestID {
    static func accepting(_ header: String?) -> String {
        if let header, isWellFormed(header) { return header }
        return make()
    }

    static func isWellFormed(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): true
            default: false
            }
        }
    }

    /// 16 random bytes in hex, like a W3C trace id.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
