import Synchronization

/// What the access log says about a request beyond its response: the cache tier that answered.
/// A reference, because contexts travel down the middleware chain by value and this travels up.
final class RequestOutcome: Sendable {
    private let answeringTier = Mutex<String?>(nil)

    var tier: String? {
        get { answeringTier.withLock { $0 } }
        set { answeringTier.withLock { $0 = newValue } }
    }
}
