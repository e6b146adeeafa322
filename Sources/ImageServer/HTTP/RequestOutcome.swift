import Synchronization

/// What the access log says about a request beyond its response: the source it asked for, the
/// cache tier that answered, and why it failed. A reference, because contexts travel down the
/// middleware chain by value and this travels up.
final class RequestOutcome: Sendable {
    private struct Facts {
        var source: String?
        var tier: String?
        var failure: String?
    }

    private let facts = Mutex(Facts())

    /// The source URL, decoded from the path (credentials are redacted when it is logged).
    var source: String? {
        get { facts.withLock { $0.source } }
        set { facts.withLock { $0.source = newValue } }
    }

    var tier: String? {
        get { facts.withLock { $0.tier } }
        set { facts.withLock { $0.tier = newValue } }
    }

    /// The reason an error answer gives.
    var failure: String? {
        get { facts.withLock { $0.failure } }
        set { facts.withLock { $0.failure = newValue } }
    }
}
