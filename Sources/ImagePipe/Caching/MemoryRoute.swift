import PipelineCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cache a synchronous memory hit through an `ImageCachesManager` asks, kept in lock stripes.
/// A lookup locks the stripe of the thread it runs on and asks the cache inside that lock, so hits
/// on different threads write different cache lines: a lock every thread takes would move one line
/// between the cores on every hit. A change of the route writes every stripe.
final class MemoryRoute: Sendable {
    typealias Entry = any SynchronousMemoryLookup

    /// One lock after 64 bytes of padding, so no two stripes' locks share a cache line.
    struct Stripe: ~Copyable, Sendable {
        let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        let entry = Mutex<Entry?>(nil)
    }

    let stripes: InlineArray<32, Stripe>

    init() { stripes = InlineArray { _ in Stripe() } }

    /// Routes hits to `cache`; nil, or a cache that cannot answer synchronously, routes none.
    func set(_ cache: (any ImageCache)?) {
        let entry = cache?.synchronousMemoryLookup
        for index in stripes.indices {
            stripes[index].entry.withLock { $0 = entry }
        }
    }

    @inline(__always)
    func memoryImage(forKey key: String, options: ImageOptions, context: ImageContext) -> Image? {
        stripes[Self.stripeIndex].entry.withLock { $0?.memoryImage(forKey: key, options: options, context: context) }
    }

    /// The calling thread's stripe: its pthread handle (an address, different for every live
    /// thread) hashed to 5 bits. Two threads share a stripe with a chance of 1 in 32; they are then
    /// as correct, only slower.
    @inline(__always)
    static var stripeIndex: Int {
        Int(truncatingIfNeeded: (UInt64(pthread_self()) &* 0x9E37_79B9_7F4A_7C15) >> 59)
    }
}
