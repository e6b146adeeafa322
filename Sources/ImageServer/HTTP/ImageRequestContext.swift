import Hummingbird
import NIOCore

/// Hummingbird's request context plus what our routes and middleware share: the connection, so
/// the work for a request can learn that its client has gone, and the request's outcome, which
/// the image route fills in and the access log reads.
struct ImageRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    let outcome = RequestOutcome()

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
