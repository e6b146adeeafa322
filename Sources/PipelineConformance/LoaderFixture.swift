import Foundation
import PipelineCore

/// What `LoaderConformance` loads: URLs the loader under test can reach, and what they hold.
///
/// HTTP loaders need not build one: `LoaderConformance.checkHTTP` serves its own from the kit's
/// `TestHTTPServer`. A loader of another scheme (files, a database, an in-app bundle) describes
/// its URLs here.
public struct LoaderFixture: Sendable {
    /// A URL that loads `expectedData`.
    public var url: URL
    public var expectedData: Data
    /// A URL whose load does not finish by itself (a server that never answers, a pipe nobody
    /// writes to), so cancelling it tests cancellation in flight. Nil: cancellation is checked only
    /// on a load whose task is already cancelled when it starts.
    public var neverAnsweringURL: URL?
    /// True once the loader's request for `neverAnsweringURL` has reached its source, so the kit
    /// cancels mid-flight rather than before the request left. Nil: the kit cancels right after
    /// calling `load`.
    public var hasStartedNeverAnsweringLoad: (@Sendable () -> Bool)?
    /// URLs whose loads must fail (a 404, a missing file). Each error's blocking answer is checked
    /// for consistency.
    public var failingURLs: [URL]
    /// URLs the loader must refuse in `canLoad` (other schemes, say).
    public var foreignURLs: [URL]

    public init(
        url: URL, expectedData: Data, neverAnsweringURL: URL? = nil,
        hasStartedNeverAnsweringLoad: (@Sendable () -> Bool)? = nil,
        failingURLs: [URL] = [], foreignURLs: [URL] = []
    ) {
        self.url = url
        self.expectedData = expectedData
        self.neverAnsweringURL = neverAnsweringURL
        self.hasStartedNeverAnsweringLoad = hasStartedNeverAnsweringLoad
        self.failingURLs = failingURLs
        self.foreignURLs = foreignURLs
    }
}
