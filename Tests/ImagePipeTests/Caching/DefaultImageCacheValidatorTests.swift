import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Default image cache: validators kept with the disk entry")
struct DefaultImageCacheValidatorTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func makeCache(honorsSourceExpiry: Bool = false) -> DefaultImageCache {
        var configuration = DiskCache.Configuration(trimInterval: nil, clock: clock.cacheClock)
        configuration.honorsSourceExpiry = honorsSourceExpiry
        return DefaultImageCache(
            memoryCache: MemoryCache(), diskCache: DiskCache(directory: directory.url, configuration: configuration),
            coders: ImageCodersManager(coders: [TestCoder(encodesEveryFormat: true)]))
    }

    func store(_ cache: DefaultImageCache, _ validators: CacheValidators?) async {
        let context = validators.map { ImageContext().with(.cacheValidators, $0) } ?? ImageContext()
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: context, cacheType: .all)
    }

    @Test("Validators stored with an entry come back from another cache on the same folder, and from memory on refreshCached")
    func roundTrip() async throws {
        let validators = CacheValidators(etag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        let first = makeCache()
        await store(first, validators)
        let disk = await makeCache().query(key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(disk?.cacheType == .disk)
        #expect(disk?.validators == validators)
        let memory = await first.query(key: "k", options: .refreshCached, context: ImageContext(), cacheType: .all)
        #expect(memory?.cacheType == .memory)
        #expect(memory?.validators == validators)
        // A new write without validators drops the old ones.
        await store(first, nil)
        #expect(await makeCache().query(key: "k", options: [], context: ImageContext(), cacheType: .disk)?.validators == nil)
    }

    @Test("Validators from the folder are sent back only when clean: no line breaks, nothing over 1 KiB")
    func hostileValidators() async throws {
        let cache = makeCache()
        await store(cache, CacheValidators(etag: "\"v1\"\r\nX-Injected: 1", lastModified: String(repeating: "a", count: 2000)))
        #expect(await makeCache().query(key: "k", options: [], context: ImageContext(), cacheType: .disk)?.validators == nil)
    }

    @Test("With honorsSourceExpiry, an entry past its max-age is a miss and removed; without it, kept by maxAge alone")
    func sourceExpiry() async throws {
        for honours in [true, false] {
            let cache = makeCache(honorsSourceExpiry: honours)
            await store(cache, CacheValidators(etag: "\"v1\"", freshnessLifetime: 60))
            clock.advance(by: 30)
            #expect(await makeCache(honorsSourceExpiry: honours).query(key: "k", options: [], context: ImageContext(), cacheType: .disk)?.image != nil)
            clock.advance(by: 31)
            let late = await makeCache(honorsSourceExpiry: honours).query(key: "k", options: [], context: ImageContext(), cacheType: .disk)
            #expect((late?.image == nil) == honours, "honours: \(honours)")
            #expect(cache.diskCache.containsData(forKey: "k") == !honours)
            await cache.clear(.all)
        }
    }
}
