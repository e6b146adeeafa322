import Foundation
import PipelineCore
import Synchronization

/// Several caches behind one `ImageCache` (SDWebImage's `SDImageCachesManager`). The cache added
/// last has the highest priority; each operation follows its own policy.
public final class ImageCachesManager: ImageCache {
    /// How an operation visits the caches.
    public enum Policy: String, Sendable, Hashable, CaseIterable {
        /// One after another from the highest priority; a query or contains stops at the first hit,
        /// the others visit all.
        case serial
        /// All at once; a query or contains answers with the first hit to arrive (nil when all missed).
        case concurrent
        /// Only the highest-priority cache.
        case highestOnly
        /// Only the lowest-priority cache.
        case lowestOnly
    }

    public struct Policies: Sendable, Hashable {
        public var query: Policy = .serial
        public var store: Policy = .highestOnly
        public var remove: Policy = .concurrent
        public var contains: Policy = .serial
        public var clear: Policy = .concurrent
        public init() {}
    }

    /// Starts empty; `PipelineCore`'s default `ImageCache` registers into it when a manager is set up.
    public static let shared = ImageCachesManager()

    private struct State {
        var caches: [any ImageCache]
        var policies: Policies
    }

    private let state: Mutex<State>
    /// Where synchronous memory hits go; rewritten with every change of `state`.
    let memoryRoute = MemoryRoute()

    /// SDWebImage's defaults: query serial, store highest-only, remove concurrent, contains serial,
    /// clear concurrent.
    public init(caches: [any ImageCache] = [], policies: Policies = Policies()) {
        state = Mutex(State(caches: caches, policies: policies))
        memoryRoute.set(Self.firstAsked(caches: caches, policies: policies))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCache] {
        get { state.withLock { $0.caches } }
        set { change { $0.caches = newValue } }
    }

    public var policies: Policies {
        get { state.withLock { $0.policies } }
        set { change { $0.policies = newValue } }
    }

    /// Adds a cache with the highest priority.
    public func add(_ cache: any ImageCache) {
        change { $0.caches.append(cache) }
    }

    public func remove<C: ImageCache>(_ type: C.Type) {
        change { $0.caches.removeAll { $0 is C } }
    }

    /// Changes the state and the memory route with it, under the state's lock, so that routes are
    /// set in the order of the changes.
    private func change(_ body: (inout State) -> Void) {
        state.withLock { state in
            body(&state)
            memoryRoute.set(Self.firstAsked(caches: state.caches, policies: state.policies))
        }
    }

    /// The cache a query asks first, where memory hits are routed when it answers them
    /// synchronously: that is what a serial or single-cache query returns on a memory hit, and a
    /// memory hit is what a concurrent one gets first.
    private static func firstAsked(caches: [any ImageCache], policies: Policies) -> (any ImageCache)? {
        switch policies.query {
        case .serial, .concurrent, .highestOnly: caches.last
        case .lowestOnly: caches.first
        }
    }

    /// The caches an operation with `policy` visits, in visiting order (highest priority first).
    private func targets(_ policy: Policy) -> [any ImageCache] {
        let caches = self.caches
        switch policy {
        case .serial, .concurrent: return caches.reversed()
        case .highestOnly: return caches.last.map { [$0] } ?? []
        case .lowestOnly: return caches.first.map { [$0] } ?? []
        }
    }

    /// Runs `ask` on the caches by `policy` and returns the first non-nil answer.
    private func firstAnswer<T: Sendable>(
        _ policy: Policy, _ ask: @escaping @Sendable (any ImageCache) async -> T?
    ) async -> T? {
        let caches = targets(policy)
        guard policy == .concurrent, caches.count > 1 else {
            for cache in caches {
                if Task.isCancelled { return nil }
                if let answer = await ask(cache) { return answer }
            }
            return nil
        }
        return await withTaskGroup(of: T?.self) { group in
            for cache in caches { group.addTask { await ask(cache) } }
            for await answer in group {
                if let answer {
                    group.cancelAll()
                    return answer
                }
            }
            return nil
        }
    }

    /// Runs `work` on every cache of `policy`, serially or all at once.
    private func visitAll(_ policy: Policy, _ work: @escaping @Sendable (any ImageCache) async -> Void) async {
        let caches = targets(policy)
        if policy == .concurrent {
            await withTaskGroup(of: Void.self) { group in
                for cache in caches { group.addTask { await work(cache) } }
            }
        } else {
            for cache in caches { await work(cache) }
        }
    }

    public func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        await firstAnswer(policies.query) { await $0.query(key: key, options: options, context: context, cacheType: cacheType) }
    }

    public func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        await visitAll(policies.store) { await $0.store(image, data: data, key: key, options: options, context: context, cacheType: cacheType) }
    }

    public func remove(key: String, cacheType: ImageCacheType) async {
        await visitAll(policies.remove) { await $0.remove(key: key, cacheType: cacheType) }
    }

    public func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await firstAnswer(policies.contains) { cache -> ImageCacheType? in
            let found = await cache.contains(key: key, cacheType: cacheType)
            return found == .none ? nil : found
        } ?? ImageCacheType.none
    }

    public func clear(_ cacheType: ImageCacheType) async {
        await visitAll(policies.clear) { await $0.clear(cacheType) }
    }
}
