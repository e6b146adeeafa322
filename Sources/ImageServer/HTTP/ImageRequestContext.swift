import Hummingbird
import NIOCore

/// Hummingbird's request context plus the connection, so the work for a request can learn that its
/// client has gone.
struct ImageRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
