/// What makes two loads the same download, so one origin request serves both: the same request
/// (what a layer can compare of it: the manager, the URL and the loader; the HTTP loader, the final
/// URL, method, headers, body and timeout after the request modifier, and the credentials) and the
/// same options among those that change the bytes fetched (`fetchOptions`: cookies, certificate
/// checks, revalidation). Everything else a load carries — decode options, thumbnail size,
/// `.progressiveLoad`, priority — changes what is done with the bytes, not the bytes, and does not
/// count: a progressive and a plain load of one URL share one download.
///
/// The same decode is the same download decoded with equal `ImageDecodeOptions`; the same
/// transform, the same decode transformed by a transformer with the same key.
public struct DownloadIdentity<Request: Hashable & Sendable>: Hashable, Sendable {
    let request: Request
    /// The load's options that change the bytes fetched; the others are dropped.
    let options: ImageOptions

    public init(request: Request, options: ImageOptions) {
        self.request = request
        self.options = options.intersection(Self.fetchOptions)
    }

    /// Options that change the bytes fetched: cookies sent, certificates accepted, and
    /// revalidation (conditional headers, a `cacheNotModified` answer).
    static var fetchOptions: ImageOptions { [.coreHandleCookies, .coreAllowInvalidSSLCertificates, .refreshCached] }
}
