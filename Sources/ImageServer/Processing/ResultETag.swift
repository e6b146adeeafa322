import Crypto
import Foundation

/// A result's ETag: a digest of the source's validator and of everything that shapes the output
/// (`ImageRenderer.Job.key`), so each representation of a URL has its own (a WebP and a JPEG
/// negotiated by `Accept`, a new watermark). When the origin sent a strong ETag it rides along,
/// `"DIGEST.BASE64URL(origin ETag)"`, so a client's `If-None-Match` can be asked of the origin,
/// as imgproxy asks it: imgproxy sends the origin's ETag itself, which would be one ETag for every
/// representation of a negotiated URL.
enum ResultETag {
    /// The ETag of the result made under `key` from a source with `validator`
    /// (`SourceLoader.validator(of:)`).
    static func make(validator: String, key: String) -> String {
        let digest = Data(SHA256.hash(data: Data("\(validator)\n\(key)".utf8)).prefix(18)).base64URLEncodedWithoutPadding
        let plain = "\"\(digest)\""
        guard let origin = originETag(validator: validator) else { return plain }
        let carrying = "\"\(digest).\(Data(origin.utf8).base64URLEncodedWithoutPadding)\""
        // Past what the server passes on as a header value (a fleet's tier refuses longer ones),
        // an origin ETag is not carried, and so not forwarded.
        return ImageRequestHandler.isHeaderSafe(carrying) ? carrying : plain
    }

    /// The origin's ETag inside `tag` (quoted, buster already taken off), when `tag` is one this
    /// server makes for `key`; nil for another representation's, or one without an origin ETag.
    static func originETag(in tag: String, key: String) -> String? {
        guard tag.count > 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
        let parts = tag.dropFirst().dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Data(base64URLEncoded: String(parts[1])) else { return nil }
        let origin = String(decoding: bytes, as: UTF8.self)
        guard ImageRequestHandler.isHeaderSafe(origin), make(validator: validatorPrefix + origin, key: key) == tag else { return nil }
        return origin
    }

    /// How `SourceLoader.validator(of:)` names a validator that is the origin's ETag.
    static let validatorPrefix = "etag:"

    private static func originETag(validator: String) -> String? {
        guard validator.hasPrefix(validatorPrefix) else { return nil }
        let etag = String(validator.dropFirst(validatorPrefix.count))
        return ImageRequestHandler.isHeaderSafe(etag) ? etag : nil
    }
}
