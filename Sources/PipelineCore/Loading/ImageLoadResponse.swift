import Foundation

/// What a loader knows about the answer besides its bytes, in terms every transport shares. A
/// loader with a protocol of its own returns its own type, which says more (LoaderHTTP's
/// `HTTPLoadResponse` carries the status and headers); a caller who knows the loader casts to it.
public protocol ImageLoadResponse: Sendable {
    /// The URL that finally answered (after redirects).
    var url: URL { get }
    /// The MIME type the source declared for the bytes, lowercased, without parameters; nil when
    /// it declared none. Never trusted to pick a coder: bytes are sniffed.
    var mimeType: String? { get }
    /// The source's entity tag for these bytes, as sent (an HTTP `ETag`); kept with copies of the
    /// bytes (a shared cache) so every copy answers with the same validator. Default: nil.
    var entityTag: String? { get }
    /// The source's modification date for these bytes, as sent (HTTP `Last-Modified`). Default: nil.
    var lastModified: String? { get }
}

extension ImageLoadResponse {
    public var entityTag: String? { nil }
    public var lastModified: String? { nil }
}
