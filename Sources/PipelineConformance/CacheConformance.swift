import Foundation
import PipelineCore
import Synchronization
import Testing

/// The contracts every `ImageCache` keeps: what is stored comes back, remove / clear / contains
/// agree, concurrent use never answers with another key's image or an outdated one, and a cancelled
/// query answers once.
///
/// The kit stores images in a raw format of its own and passes its coder in the context's
/// `.imageCoder`, so a cache that decodes disk bytes must honour that key (as the built-in does).
public enum CacheConformance {
    public struct Options: Sendable {
        /// The levels to check; a memory-only cache passes `[.memory]`.
        public var cacheTypes: [ImageCacheType] = [.memory, .disk, .all]
        public var timeLimit: Duration = .seconds(10)
        public init() {}
    }

    public static func check(_ cache: some ImageCache, options: Options = Options(), sourceLocation: SourceLocation = #_sourceLocation) async {
        await failures(for: cache, options: options).recordIssues(sourceLocation: sourceLocation)
    }

    public static func failures(for cache: some ImageCache, options: Options = Options()) async -> [ConformanceFailure] {
        var log = FailureLog()
        let context = ImageContext().with(.imageCoder, KitCoder())
        let run = UInt64.random(in: 0...UInt64.max)
        func key(_ name: String) -> String { "https://conformance.invalid/\(run)/\(name).ipkit" }
        /// Image i is i+1 pixels wide, so a wrong answer is visible in its size.
        func image(_ i: Int) -> (Image, Data) {
            let buffer = try! PixelBuffer(width: i + 1, height: 2, format: .rgba8, fill: ImageColor(red: UInt8(i % 256), green: 7, blue: 9))
            return (Image(buffer, format: KitCoder.format), KitCoder.encode(buffer))
        }

        for type in options.cacheTypes {
            let name = "cacheType \(type.rawValue)"
            let k = key("roundtrip-\(type.rawValue)")
            let (stored, data) = image(4)
            await cache.store(stored, data: data, key: k, options: [], context: context, cacheType: type)
            let hit = await cache.query(key: k, options: [], context: context, cacheType: type)
            log.expect(
                hit?.image?.pixelSize == stored.pixelSize, "cache.storeThenQuery", name,
                "stored a \(stored.pixelSize) image; the query right after answered \(hit?.image.map { "a \($0.pixelSize) image" } ?? "no image")")
            if let hitType = hit?.cacheType {
                log.expect(hitType != .none && (type == .all || hitType == type), "cache.resultType", name, "a hit in \(type.rawValue) reported cacheType \(hitType.rawValue)")
            }
            log.expect(await cache.contains(key: k, cacheType: type) != .none, "cache.contains", name, "contains answered none right after a store")
            await cache.remove(key: k, cacheType: type)
            log.expect(await cache.query(key: k, options: [], context: context, cacheType: type)?.image == nil, "cache.remove", name, "a query still found the image after remove")
            let left = await cache.contains(key: k, cacheType: type)
            log.expect(left == .none, "cache.remove", name, "contains answered \(left.rawValue) after remove; expected none")
        }

        // Each level answers for itself: an image stored in one level only is not found by a query
        // or `contains` of the other (a `.disk`-only query must not answer from memory), and a
        // `.disk` query answers `.disk` even when memory holds the image too.
        if options.cacheTypes.contains(.memory), options.cacheTypes.contains(.disk) {
            for (storedIn, askedFor) in [(ImageCacheType.memory, ImageCacheType.disk), (.disk, .memory)] {
                let name = "stored in \(storedIn.rawValue), asked for \(askedFor.rawValue)"
                let k = key("level-\(storedIn.rawValue)")
                await cache.store(image(5).0, data: image(5).1, key: k, options: [], context: context, cacheType: storedIn)
                let hit = await cache.query(key: k, options: [], context: context, cacheType: askedFor)
                log.expect(
                    hit?.image == nil && hit?.data == nil, "cache.honoursCacheType", name,
                    "the query answered from \(hit?.cacheType.rawValue ?? "?") with the image")
                let found = await cache.contains(key: k, cacheType: askedFor)
                log.expect(found == .none, "cache.honoursCacheType", name, "contains answered \(found.rawValue)")
                await cache.remove(key: k, cacheType: .all)
            }
            let both = key("level-all")
            await cache.store(image(5).0, data: image(5).1, key: both, options: [], context: context, cacheType: .all)
            let fromDisk = await cache.query(key: both, options: [], context: context, cacheType: .disk)
            log.expect(
                fromDisk?.image?.pixelSize.width == 6 && fromDisk?.cacheType == .disk, "cache.honoursCacheType",
                "stored in all, asked for disk", "answered \(fromDisk.map { "from \($0.cacheType.rawValue)" } ?? "nothing")")
            await cache.remove(key: both, cacheType: .all)
        }

        let all = options.cacheTypes.contains(.all) ? ImageCacheType.all : options.cacheTypes.first ?? .memory
        // A second store under the same key replaces the first.
        let replaced = key("replace")
        await cache.store(image(2).0, data: image(2).1, key: replaced, options: [], context: context, cacheType: all)
        await cache.store(image(6).0, data: image(6).1, key: replaced, options: [], context: context, cacheType: all)
        let latest = await cache.query(key: replaced, options: [], context: context, cacheType: all)
        log.expect(
            latest?.image?.pixelSize.width == 7, "cache.replace", "store twice",
            "after two stores under one key the query answered \(latest?.image.map { "an image \($0.pixelSize.width) wide" } ?? "no image"); expected the second, 7 wide")

        // Clear empties every level.
        let cleared = key("clear")
        await cache.store(image(1).0, data: image(1).1, key: cleared, options: [], context: context, cacheType: all)
        await cache.clear(all)
        log.expect(await cache.query(key: cleared, options: [], context: context, cacheType: all)?.image == nil, "cache.clear", "clear", "a query still found an image after clear(\(all.rawValue))")

        // Concurrent stores, queries and removes of a few keys: an answer is always that key's image.
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<60 {
                        let i = (worker * 7 + step) % 5
                        let k = key("concurrent-\(i)")
                        switch (worker + step) % 3 {
                        case 0: await cache.store(image(i).0, data: image(i).1, key: k, options: [], context: context, cacheType: all)
                        case 1:
                            if let width = await cache.query(key: k, options: [], context: context, cacheType: all)?.image?.pixelSize.width, width != i + 1 { wrong += 1 }
                        default: await cache.remove(key: k, cacheType: all)
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        log.expect(wrong == 0, "cache.concurrency", "6 tasks x 60 operations", "\(wrong) queries answered with another key's image (told apart by width)")

        // A query whose task is cancelled answers once, and soon.
        let slow = key("cancelled")
        await cache.store(image(3).0, data: image(3).1, key: slow, options: [], context: context, cacheType: all)
        let answers = ManagedCounter()
        let query = Task {
            _ = await cache.query(key: slow, options: [], context: context, cacheType: all)
            answers.increment()
        }
        query.cancel()
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await query.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: options.timeLimit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        log.expect(
            finished && answers.value == 1, "cache.cancelledQuery", "cancel",
            finished ? "a cancelled query answered \(answers.value) times; expected once" : "a cancelled query did not answer within \(options.timeLimit)")
        await cache.clear(all)
        return log.failures
    }
}

/// A counter safe to bump from any task.
final class ManagedCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
