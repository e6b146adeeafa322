import Foundation
import HTTPTypes

/// A request's validators, `If-None-Match` and `If-Modified-Since`, as the image endpoint answers
/// them (RFC 9110 §13.2.2): with `If-None-Match` the ETag alone decides; otherwise a
/// `Last-Modified` no later than `If-Modified-Since` is not modified. Each is read only while its
/// setting (`usesETag`, `usesLastModified`) is on, as imgproxy's `IMGPROXY_USE_ETAG` and
/// `IMGPROXY_USE_LAST_MODIFIED` turn them off.
struct ConditionalRequest: Sendable {
    var ifNoneMatch: String?
    var ifModifiedSince: Date?

    init(headers: HTTPFields, usesETag: Bool, usesLastModified: Bool, now: Date = Date()) {
        ifNoneMatch = usesETag ? headers[.ifNoneMatch] : nil
        // A date after now is invalid (RFC 9110 §13.1.3), and so is ignored.
        if usesLastModified, ifNoneMatch == nil, let text = headers[.ifModifiedSince], let date = HTTPDate.parse(text), date <= now {
            ifModifiedSince = date
        }
    }

    var isConditional: Bool { ifNoneMatch != nil || ifModifiedSince != nil }

    /// Whether the client holds the representation with these validators; false when they
    /// cannot tell (an ETag not known yet).
    func isNotModified(etag: String?, lastModified: String?) -> Bool {
        if let ifNoneMatch {
            guard let etag else { return false }
            return ImageRequestHandler.matches(ifNoneMatch, etag)
        }
        guard let ifModifiedSince, let lastModified, let modified = HTTPDate.parse(lastModified) else { return false }
        return modified <= ifModifiedSince
    }
}
