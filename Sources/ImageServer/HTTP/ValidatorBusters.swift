import Foundation

/// imgproxy's validator busters: `etag` goes in front of every ETag (`"BUSTER/…"`), so changing it
/// turns every ETag clients and caches hold into a miss at once; `lastModified` raises an older
/// `Last-Modified` to its date, so `If-Modified-Since` sees a change that affects every image (a
/// new watermark, new defaults). Both are off when unset, and apply to processed images only
/// (`raw:1` passes the origin's validators on as they are).
struct ValidatorBusters: Sendable {
    let etag: String
    let lastModified: Date?

    /// `tag` (a quoted strong ETag) behind the buster.
    func etag(_ tag: String?) -> String? {
        guard let tag, !etag.isEmpty, tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return tag }
        return "\"\(etag)/\(tag.dropFirst())"
    }

    /// `text` (an HTTP date), or the buster's date when that is later; nothing when the origin
    /// sent nothing.
    func lastModified(_ text: String?) -> String? {
        guard let text, let lastModified, let date = HTTPDate.parse(text), date < lastModified else { return text }
        return HTTPDate.format(lastModified)
    }
}
