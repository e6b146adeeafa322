import Foundation
import PipelineCore

/// Where the caches read the time: the wall clock, or a test's clock so expiry and trimming are
/// tested without sleeping.
@usableFromInline
struct CacheClock: Sendable {
    @usableFromInline let now: @Sendable () -> Date

    init(_ now: @escaping @Sendable () -> Date) { self.now = now }

    @usableFromInline static let system = CacheClock { Date() }

    /// `now` as seconds since the reference date, the form cache entries store expiry in.
    @inlinable var seconds: Double { now().timeIntervalSinceReferenceDate }
}
