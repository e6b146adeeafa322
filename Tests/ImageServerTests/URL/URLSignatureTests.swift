import Foundation
import Testing

@testable import ImageServer

@Suite("URL signatures")
struct URLSignatureTests {
    /// imgproxy's documented example: key `secret`, salt `hello`, and the signature its docs give.
    static let documentedPath = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let documentedKey = URLSigningKey(keyHex: "736563726574", saltHex: "68656C6C6F")!

    @Test("imgproxy's documented example vector signs and verifies to its published signature")
    func documentedVector() {
        #expect(Self.documentedKey.signature(for: Self.documentedPath) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        let verifier = URLSignatureVerifier(keys: [Self.documentedKey], allowsUnsigned: false)
        #expect(verifier.check(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: Self.documentedPath) == .valid)
    }

    @Test("as Go's RawURLEncoding: unused low bits are read, padding is refused")
    func spellings() {
        let verifier = URLSignatureVerifier(keys: [Self.documentedKey], allowsUnsigned: false)
        #expect(verifier.check(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH9", path: Self.documentedPath) == .valid)
        #expect(verifier.check(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8=", path: Self.documentedPath) == .refused("invalid signature"))
    }

    @Test("the signature covers the path after imgproxy's repairs, without the query (rows 80-82)")
    func repairedPath() throws {
        let verifier = URLSignatureVerifier(keys: [Self.documentedKey], allowsUnsigned: false)
        let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"
        for suffix in ["", "?foo=bar"] {
            for path in [Self.documentedPath, Self.documentedPath.replacingOccurrences(of: "rs:fill:300:400:0", with: "rs%3Afill%3A300%3A400%3A0")] {
                let parts = try ImagePath(target: "/" + signature + path + suffix)
                #expect(verifier.check(signature: parts.signature, path: parts.path) == .valid, "\(path)\(suffix)")
            }
        }
        #expect(verifier.check(signature: "insecure", path: Self.documentedPath) == .refused("unsigned URLs are not accepted"))
        let vector = URLSigningKey(keyHex: "746573742d6b6579", saltHex: "746573742d73616c74")!
        #expect(vector.signature(for: "/rs:fill:4:4/plain/local:///test1.png") == "My9d3xq_PYpVHsPrCyww0Kh1w5KZeZhIlWhsa4az1TI")
    }

    /// Made by the PyPI client `imgproxy` 0.4.2:
    /// `ImgProxy('http://127.0.0.1:1/images/photo.jpg', proxy_host='http://localhost:8080', key=…, salt=…)`
    /// called with `width=300, height=200, resizing_type='fit'`.
    static let pypiURL = "/ty7qptzubNa3Dct9lYrLwZJNImzL9FggbdAkmcxOz1A/g:ce/rs:fit:300:200:0/aHR0cDovLzEyNy4wLjAuMToxL2ltYWdlcy9waG90by5qcGc"
    static let pypiKey = URLSigningKey(
        keyHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
        saltHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!

    @Test("a URL built by a PyPI imgproxy client verifies and parses")
    func pypiClientURL() throws {
        let path = try ImagePath(target: Self.pypiURL)
        let url = try ProcessingURL(path: path.path)
        let verifier = URLSignatureVerifier(keys: [Self.pypiKey], allowsUnsigned: false)
        #expect(verifier.check(signature: path.signature, path: path.path) == .valid)
        #expect(url.source == "http://127.0.0.1:1/images/photo.jpg")
        #expect(url.options.canonical == "rs:fit:300:200:0/g:ce")
    }

    @Test("with several keys (rotation) a URL signed by any of them is accepted, by none refused")
    func keyRotation() {
        let old = URLSigningKey(keyHex: "aa01", saltHex: "bb01")!, new = URLSigningKey(keyHex: "aa02", saltHex: "bb02")!
        let other = URLSigningKey(keyHex: "aa03", saltHex: "bb03")!
        let verifier = URLSignatureVerifier(keys: [new, old], allowsUnsigned: false)
        let path = "/w:10/plain/http://example.com/a.png"
        #expect(verifier.check(signature: old.signature(for: path), path: path) == .valid)
        #expect(verifier.check(signature: new.signature(for: path), path: path) == .valid)
        #expect(verifier.check(signature: other.signature(for: path), path: path) == .refused("invalid signature"))
        // A signature for another path, a truncated one, and one that is not base64 at all.
        #expect(verifier.check(signature: new.signature(for: path + "x"), path: path) == .refused("invalid signature"))
        #expect(verifier.check(signature: String(new.signature(for: path).dropLast(4)), path: path) == .refused("invalid signature"))
        #expect(verifier.check(signature: "not/base64!", path: path) == .refused("invalid signature"))
    }

    @Test("unsigned URLs (insecure, _) are refused unless allowed; without keys any text but one holding : passes")
    func unsigned() {
        let strict = URLSignatureVerifier(keys: [Self.documentedKey], allowsUnsigned: false)
        #expect(strict.check(signature: "insecure", path: "/x") == .refused("unsigned URLs are not accepted"))
        #expect(strict.check(signature: "_", path: "/x") == .refused("unsigned URLs are not accepted"))
        let open = URLSignatureVerifier(keys: [Self.documentedKey], allowsUnsigned: true)
        #expect(open.check(signature: "insecure", path: "/x") == .valid)
        #expect(open.check(signature: "_", path: "/x") == .valid)
        #expect(open.check(signature: "bogus", path: "/x") == .refused("invalid signature"))
        let keyless = URLSignatureVerifier(keys: [], allowsUnsigned: true)
        #expect(keyless.check(signature: "unsafe", path: "/x") == .valid)
        guard case .refused(let reason) = keyless.check(signature: "rs:fill:100:100", path: "/x") else {
            Issue.record("a signature holding : passed")
            return
        }
        #expect(reason.hasPrefix("the signature appears to be a processing option"))
    }

    @Test("keys and salts must be hex; a key never shows in descriptions")
    func keyParsingAndRedaction() {
        #expect(URLSigningKey(keyHex: "xyz0", saltHex: "00") == nil)
        #expect(URLSigningKey(keyHex: "abc", saltHex: "00") == nil)
        #expect(URLSigningKey(keyHex: "", saltHex: "00") == nil)
        let key = URLSigningKey(keyHex: "736563726574", saltHex: "68656C6C6F")!
        #expect(!String(describing: key).contains("736563726574"))
        #expect(!String(reflecting: key).contains("secret"))
    }
}
