import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// `ImageCachesManager`'s synchronous memory hit, which goes through its `MemoryRoute`.
@Suite("Caches manager memory route")
struct MemoryRouteTests {
    let directory = TemporaryDirectory()

    /// A memory-only cache holding `image` under "k".
    func cache(_ name: String, holding image: Image) -> DefaultImageCache {
        let cache = DefaultImageCache(namespace: name, directory: directory.url, memoryCache: MemoryCache(costLimit: 1 << 20))
        cache.memoryCache.set(image, forKey: "k", cost: 36)
        return cache
    }

    func hit(_ manager: ImageCachesManager) -> Image? {
        manager.memoryImage(forKey: "k", options: [], context: ImageContext())
    }

    @Test("The hit follows every change of the caches and the query policy")
    func followsChanges() {
        let image = TestImages.still()
        let a = cache("a", holding: image)
        let manager = ImageCachesManager()
        #expect(hit(manager) == nil)
        manager.add(a)
        #expect(hit(manager)?.box === image.box)
        manager.add(InMemoryImageCache(name: "no synchronous answer"))
        #expect(hit(manager) == nil, "a serial query asks the newest cache first")
        manager.policies.query = .lowestOnly
        #expect(hit(manager)?.box === image.box)
        manager.policies.query = .serial
        manager.remove(InMemoryImageCache.self)
        #expect(hit(manager)?.box === image.box)
        manager.caches = []
        #expect(hit(manager) == nil)
    }

    @Test("Hits on many tasks while the caches change answer from one of the caches, every time")
    func hitsWhileChanging() async {
        let first = TestImages.still(), second = TestImages.still()
        let a = cache("a", holding: first), b = cache("b", holding: second)
        let manager = ImageCachesManager(caches: [a])
        let answers = await withTaskGroup(of: (Int, Int).self) { group in
            group.addTask {
                for i in 0..<2_000 { manager.caches = i % 2 == 0 ? [b] : [a] }
                return (0, 0)
            }
            for _ in 0..<4 {
                group.addTask {
                    var fromEither = 0, other = 0
                    for _ in 0..<5_000 {
                        let box = hit(manager)?.box
                        if box === first.box || box === second.box { fromEither += 1 } else { other += 1 }
                    }
                    return (fromEither, other)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        #expect(answers.0 == 20_000)
        #expect(answers.1 == 0)
    }

    @Test("Every thread's stripe is one of the stripes")
    func stripeInRange() async {
        let indices = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { MemoryRoute.stripeIndex } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let count = MemoryRoute().stripes.count
        #expect(indices.allSatisfy { (0..<count).contains($0) })
    }
}
