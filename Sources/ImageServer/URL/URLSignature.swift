import Crypto
import Foundation

/// One key/salt pair signing image URLs: HMAC-SHA256 with `key` over `salt` followed by the path
/// after the signature, encoded as URL-safe base64 without padding (imgproxy's scheme).
/// Its description never shows the key.
public struct URLSigningKey: Sendable, CustomStringConvertible {
    /// Bytes rather than a `SymmetricKey`, which is not `Sendable` on every platform.
    let key: [UInt8]
    let salt: [UInt8]

    /// Nil unless both are non-empty hex strings of whole bytes.
    public init?(keyHex: String, saltHex: String) {
        guard let key = Self.bytes(hex: keyHex), let salt = Self.bytes(hex: saltHex), !key.isEmpty, !salt.isEmpty else { return nil }
        self.key = key
        self.salt = salt
    }

    public var description: String { "URLSigningKey(redacted)" }

    /// The signature of `path` (leading slash included).
    public func signature(for path: String) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        return Data(hmac.finalize()).base64URLEncodedWithoutPadding
    }

    /// True when `mac` is the start of this key's MAC of `path` (all of it, or the first bytes
    /// when signatures are truncated); compared in constant time.
    func isValid(_ mac: Data, for path: String) -> Bool {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        let expected = Array(hmac.finalize())
        guard !mac.isEmpty, mac.count <= expected.count else { return false }
        var difference: UInt8 = 0
        for (index, byte) in mac.enumerated() { difference |= byte ^ expected[index] }
        return difference == 0
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Checks a URL's signature as imgproxy does, against every configured key (several at once, so
/// keys can rotate). With no keys and unsigned URLs allowed, any signature text is accepted but
/// one holding `:` (an option where the signature belongs); with keys, `insecure` and `_` pass
/// only when unsigned URLs are allowed too.
struct URLSignatureVerifier: Sendable {
    let keys: [URLSigningKey]
    let allowsUnsigned: Bool
    /// Bytes of the MAC a signature carries (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
    var signatureSize = SHA256.byteCount
    /// Accepted as they are.
    var trusted: Set<String> = []

    enum Outcome: Equatable {
        case valid
        /// Why the URL is refused (403), without saying anything about the keys.
        case refused(String)
    }

    func check(signature: String, path: String) -> Outcome {
        if !trusted.isEmpty && trusted.contains(signature) { return .valid }
        if keys.isEmpty || signature == "insecure" || signature == "_" {
            guard allowsUnsigned else { return .refused(keys.isEmpty ? "no signing key is configured" : "unsigned URLs are not accepted") }
            // imgproxy's answer: a URL without a signature segment would otherwise lose its first option.
            guard !signature.contains(":") else {
                return .refused("the signature appears to be a processing option; the signature section should always be present in the URL")
            }
            return .valid
        }
        // Unpadded URL-safe base64 as Go's RawURLEncoding reads it: `=` is refused, unused low bits
        // of the last character are not.
        guard !signature.contains("="), let mac = Data(base64URLEncoded: signature), mac.count == signatureSize else {
            return .refused("invalid signature")
        }
        // Every key is compared, so the time taken does not tell which one matched.
        var matched = false
        for key in keys where key.isValid(mac, for: path) { matched = true }
        return matched ? .valid : .refused("invalid signature")
    }
}

extension Data {
    var base64URLEncodedWithoutPadding: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// URL-safe base64, padding optional; nil for any other character.
    init?(base64URLEncoded text: String) {
        guard text.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        self.init(base64Encoded: standard)
    }
}
