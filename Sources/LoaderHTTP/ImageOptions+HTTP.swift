import PipelineCore

// The HTTP loader's flags (the project's rule: keys of one loader live in its plugin). The core
// reads their bits too, for `DownloadIdentity`: they change the bytes fetched.
extension ImageOptions {
    /// Send and store cookies.
    public static let handleCookies = ImageOptions.coreHandleCookies
    /// Accept any TLS certificate. For testing against self-signed servers only.
    public static let allowInvalidSSLCertificates = ImageOptions.coreAllowInvalidSSLCertificates
}
