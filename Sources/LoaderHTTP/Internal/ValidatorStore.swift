import Foundation
import PipelineCore
import Synchronization

/// The last `ETag` / `Last-Modified` seen per URL, for `.refreshCached` revalidation. Bounded:
/// when full, an arbitrary half is dropped (a miss only costs a full download).
final class ValidatorStore: Sendable {
    struct Validators: Sendable {
        var etag: String?
        var lastModified: String?
    }

    private let capacity: Int
    private let entries = Mutex<[String: Validators]>([:])

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func remember(_ response: HTTPLoadResponse) {
        let found = Validators(etag: response.header("ETag"), lastModified: response.header("Last-Modified"))
        guard capacity > 0, found.etag != nil || found.lastModified != nil else { return }
        entries.withLock { entries in
            if entries.count >= capacity {
                for key in entries.keys.prefix(max(1, capacity / 2)) { entries[key] = nil }
            }
            entries[response.url.absoluteString] = found
        }
    }

    func validators(for url: URL) -> Validators? {
        entries.withLock { $0[url.absoluteString] }
    }
}
