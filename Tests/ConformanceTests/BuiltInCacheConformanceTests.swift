import Foundation
import ImagePipe
import PipelineConformance
import PipelineCore
import Testing

@Suite("Built-in caches keep the kit's cache contracts")
struct BuiltInCacheConformanceTests {
    @Test("DefaultImageCache: memory and disk in a temporary directory")
    func defaultImageCache() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = CacheConformance.Options()
        // The kit's time limit only catches a hang; a machine shared with builds needs a generous one.
        options.timeLimit = .seconds(60)
        await CacheConformance.check(DefaultImageCache(namespace: "conformance", directory: directory), options: options)
    }

    @Test("An ImageCache backed by MemoryCache alone")
    func memoryBackedCache() async {
        var options = CacheConformance.Options()
        options.timeLimit = .seconds(60)
        options.cacheTypes = [.memory]
        await CacheConformance.check(MemoryBackedImageCache(), options: options)
    }
}

/// What an app wanting a memory-only cache writes: `MemoryCache` behind the `ImageCache` protocol.
final class MemoryBackedImageCache: ImageCache {
    private let memory = MemoryCache<String, Image>()

    func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        guard cacheType.includesMemory, let image = memory.value(forKey: key) else { return nil }
        return ImageCacheResult(image: image, data: nil, cacheType: .memory)
    }

    func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        guard cacheType.includesMemory, let image else { return }
        memory.set(image, forKey: key, cost: image.memoryCost)
    }

    func remove(key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { _ = memory.removeValue(forKey: key) }
    }

    func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        cacheType.includesMemory && memory.contains(key) ? .memory : .none
    }

    func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory.removeAll() }
    }
}
