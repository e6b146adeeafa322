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

    /// A client's `tag` with the buster taken off (and any `W/`): the tag this server made; nil
    /// when the buster is set and `tag` does not carry it (it was sent before the buster).
    func unwrappingETag(_ tag: String) -> String? {
        let strong = tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        guard !etag.isEmpty else { return strong }
        let front = "\"\(etag)/"
        guard strong.hasPrefix(front), strong.count > front.count else { return nil }
        return "\"" + strong.dropFirst(front.count)
    }

    /// Whether a client's `If-Modified-Since` may go to the origin: always without the buster;
    /// with it, only a date after the buster's (imgproxy's rule: an earlier one was answered
    /// before the change the buster stands for).
    func forwardsModifiedSince(_ text: String) -> Bool {
        guard let lastModified else { return true }
        guard let date = HTTPDate.parse(text) else { return false }
        return lastModified < date
    }

    /// `text` (an HTTP date), or the buster's date when that is later; nothing when the origin
    /// sent nothing.
    func lastModified(_ text: String?) -> String? {
        guard let text, let lastModified, let date = HTTPDate.parse(text), date < lastModified else { return text }
        return HTTPDate.format(lastModified)
    }
}
