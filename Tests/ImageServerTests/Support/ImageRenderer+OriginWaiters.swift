@testable import ImageServer
@testable import LoaderHTTP

extension ImageRenderer {
    /// Requests waiting on the HTTP loader's transfers, to see requests share one fetch.
    var originWaiters: Int {
        (loader.remote as? HTTPLoader)?.waitingCallerCount ?? 0
    }
}
