import HTTPTypes

/// A client's `If-None-Match` and `If-Modified-Since` as the origin is asked them for a processed
/// image (imgproxy 4's `conditionalheaders`, with `--use-etag` and `--use-last-modified`): each
/// ETag of this URL's representation with the buster taken off becomes the origin's ETag inside
/// it, and the date goes as sent (after `--last-modified-buster`, only a later one). When the
/// client names ETags and none of them is this representation's, nothing is forwarded: the origin
/// could only answer for bytes the client does not hold (imgproxy also forwards nothing for an
/// ETag without its buster).
struct OriginConditions: Sendable, Hashable {
    /// The headers for the origin; empty when the request is not conditional for it.
    let headers: [String: String]
    /// The client's ETags that were forwarded, as they were sent, by the origin ETag inside each.
    private let clientETags: [String: String]

    init(request: HTTPFields, key: String, busters: ValidatorBusters, usesETag: Bool, usesLastModified: Bool) {
        var headers: [String: String] = [:]
        var clientETags: [String: String] = [:]
        if usesETag, let header = request[.ifNoneMatch] {
            for tag in header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let ours = busters.unwrappingETag(tag), let origin = ResultETag.originETag(in: ours, key: key) else { continue }
                if clientETags[origin] == nil { clientETags[origin] = tag }
            }
            guard !clientETags.isEmpty else {
                (self.headers, self.clientETags) = ([:], [:])
                return
            }
            headers["If-None-Match"] = clientETags.keys.sorted().joined(separator: ", ")
        }
        if usesLastModified, let since = request[.ifModifiedSince], ImageRequestHandler.isHeaderSafe(since), busters.forwardsModifiedSince(since) {
            headers["If-Modified-Since"] = since
        }
        (self.headers, self.clientETags) = (headers, clientETags)
    }

    var isEmpty: Bool { headers.isEmpty }

    /// The ETag a 304 from the origin is answered with: the client's, when it named one of this
    /// representation (with several, the origin's 304 does not say which it matched, and a wrong
    /// one would refresh another stored copy in a cache).
    var answeringETag: String? { clientETags.count == 1 ? clientETags.values.first : nil }
}
