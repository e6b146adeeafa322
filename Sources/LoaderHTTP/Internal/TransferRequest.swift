import PipelineCore

/// What the HTTP loader compares of two loads to tell whether they are the same download: the
/// final request (URL, method, headers, body, timeout, after the request modifier) and the
/// credentials. With the fetch options, `DownloadIdentity` makes the transfer's key.
struct TransferRequest: Hashable, Sendable {
    let request: HTTPLoadRequest
    let credentials: HTTPCredentials?
}

typealias TransferKey = DownloadIdentity<TransferRequest>

extension TransferKey {
    init(settings: TransferSettings) {
        self.init(request: TransferRequest(request: settings.request, credentials: settings.credentials), options: settings.options)
    }
}
