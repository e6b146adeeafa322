import Foundation
import PipelineCore

/// What the HTTP loader compares of two loads to tell whether they are the same download: the
/// final request (URL, method, headers, body, timeout, after the request modifier), the
/// credentials and the response limit. With the fetch options, `DownloadIdentity` makes the transfer's key.
struct TransferRequest: Hashable, Sendable {
    let request: HTTPLoadRequest
    let credentials: HTTPCredentials?
    /// Set for a load whose body goes to a sink: its download is its own.
    var exclusive: UUID?
    /// Loads with different limits do not share a download: each is held to its own.
    var maxResponseBytes: Int64
}

typealias TransferKey = DownloadIdentity<TransferRequest>

extension TransferKey {
    init(settings: TransferSettings) {
        let exclusive = settings.bodySink == nil ? nil : UUID()
        let request = TransferRequest(
            request: settings.request, credentials: settings.credentials, exclusive: exclusive,
            maxResponseBytes: settings.configuration.maxResponseBytes)
        self.init(request: request, options: settings.options)
    }
}
