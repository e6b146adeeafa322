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
    /// What the source said about revalidating and keeping the bytes; nil when the transport has
    /// no such notion (the default).
    var cacheValidators: CacheValidators? { get }
}

extension ImageLoadResponse {
    public var cacheValidators: CacheValidators? { nil }
}
