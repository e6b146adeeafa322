import Foundation
import PipelineCore
import Synchronization

/// What makes two requests the same download: the final request (URL, method, headers, body,
/// timeout, after the request modifier) and the options and credentials that change the transfer.
struct TransferKey: Hashable, Sendable {
    var request: HTTPLoadRequest
    var options: ImageOptions
    var credentials: HTTPCredentials?

    init(settings: TransferSettings) {
        request = settings.request
        options = settings.options.intersection([.handleCookies, .allowInvalidSSLCertificates, .refreshCached])
        credentials = settings.credentials
    }
}

/// The transfers in flight, by key. Lock order: the table's lock, then a transfer's; a transfer
/// finishing never holds its own lock while calling `remove`.
final class TransferTable: Sendable {
    private let transfers = Mutex<[TransferKey: CurlTransfer]>([:])

    /// The live transfer for `key` with `waiter` added, or a new one (`isNew`) the caller submits.
    /// A finished or cancelled transfer refuses new waiters, so a late request starts afresh.
    func transfer(for key: TransferKey, waiter: TransferWaiter, make: () -> CurlTransfer) -> (CurlTransfer, isNew: Bool) {
        transfers.withLock { transfers in
            if let existing = transfers[key], existing.add(waiter) { return (existing, false) }
            let created = make()
            _ = created.add(waiter)
            transfers[key] = created
            return (created, true)
        }
    }

    func remove(_ transfer: CurlTransfer, for key: TransferKey) {
        transfers.withLock { transfers in
            if transfers[key] === transfer { transfers[key] = nil }
        }
    }

    /// Callers waiting on transfers in flight (for tests and diagnostics).
    var callerCount: Int {
        transfers.withLock { $0.values.reduce(0) { $0 + $1.waiterCount } }
    }
}
