import Foundation
import MetricsTestKit
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// The flow's memory step (`ImageLoadFlow.answerFromMemory`), which the async API runs before any
/// task exists, must answer exactly as the cache query would, and step aside whenever the flow
/// would do more than read memory.
@Suite("Image manager memory hits")
struct ImageManagerMemoryHitTests {
    let url = URL(string: "test://img/photo.timg")!

    /// The memory step's answer for `url`; nil when it steps aside (or steps 1–5 fail).
    func memoryStep(_ manager: ImageManager, options: ImageOptions, context: ImageContext) -> ImageResult? {
        (try? ImageLoadFlow(manager: manager, url: url, options: options, context: context))?.answerFromMemory()
    }

    /// A manager over a real `DefaultImageCache` holding a 40 x 20 image in memory under `url`'s key.
    struct Fixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("memory-hit-\(UUID().uuidString)")
        let loader = TestLoader.scripted(delay: .milliseconds(10))
        let cache: DefaultImageCache
        let manager: ImageManager

        init(url: URL) throws {
            let coders = ImageCodersManager(coders: [TestCoder()])
            cache = DefaultImageCache(namespace: "hits", directory: directory, coders: coders)
            manager = ImageManager(cache: cache, loader: loader, coders: coders)
            let image = Image(try PixelBuffer(width: 40, height: 20, format: .rgba8))
            cache.memoryCache.set(image, forKey: manager.cacheKey(for: url), cost: 40 * 20 * 4)
        }
    }

    @Test("A memory hit answers with the cached image, from memory, without a request or a running task")
    func memoryHit() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        #expect(memoryStep(f.manager, options: [], context: ImageContext()) != nil)
        let result = try await f.manager.loadImage(with: url)
        #expect(result.image?.pixelSize == ImageSize(width: 40, height: 20))
        #expect(result.cacheType == .memory)
        #expect(result.data == nil)
        #expect(result.url == url)
        #expect(f.loader.totalRequests == 0)
        #expect(!f.manager.isRunning)
    }

    @Test("Through a caches manager (how ImageManager.shared is set up) the hit is just as direct; a lower cache's hit is not taken")
    func throughCachesManager() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let other = InMemoryImageCache(name: "highest")
        let caches = ImageCachesManager(caches: [f.cache])
        let manager = ImageManager(cache: caches, loader: f.loader, coders: f.cache.coders)
        #expect(memoryStep(manager, options: [], context: ImageContext()) != nil)
        #expect(try await manager.loadImage(with: url).cacheType == .memory)
        // A serial query asks the highest-priority cache first: its miss means the full flow.
        caches.add(other)
        #expect(memoryStep(manager, options: [], context: ImageContext()) == nil)
        #expect(try await manager.loadImage(with: url).cacheType == .memory)
        #expect(other.queries.count == 1)
    }

    @Test("A blocked URL fails with blockedURL even when its image is in memory")
    func blockedURL() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        f.manager.blockedURLs.insert(url, lifetime: .seconds(600), capacity: 10)
        await #expect(throws: ImagePipeError.blockedURL(url.absoluteString)) { try await f.manager.loadImage(with: url) }
        let retried = try await f.manager.loadImage(with: url, options: [.retryFailed])
        #expect(retried.cacheType == .memory)
    }

    @Test("A URL blocked while loads of it are answered from memory fails every load that starts after the block")
    func blockedWhileHitting() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let manager = f.manager, url = url
        // Hits on another task until one is refused; it ends once the block is visible to it.
        let hitter = Task { () -> ImagePipeError? in
            while true {
                do {
                    _ = try await manager.loadImage(with: url)
                } catch {
                    return error as? ImagePipeError
                }
            }
        }
        manager.blockedURLs.insert(url, lifetime: .seconds(600), capacity: 10)
        await #expect(throws: ImagePipeError.blockedURL(url.absoluteString)) { try await manager.loadImage(with: url) }
        #expect(await hitter.value == .blockedURL(url.absoluteString))
        manager.blockedURLs.remove(url)
        #expect(try await manager.loadImage(with: url).cacheType == .memory)
    }

    @Test("A key filter set on the settings after memory hits decides the next load's key; removing it brings the hits back")
    func settingsChangeSeenByNextLoad() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        #expect(try await f.manager.loadImage(with: url).cacheType == .memory)
        f.loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 4, height: 4, color: .white)))
        f.manager.settings.cacheKeyFilter = ImageCacheKeyFilter { _ in "test://img/elsewhere.timg" }
        let filtered = try await f.manager.loadImage(with: url)
        #expect(filtered.cacheType == .none, "nothing is in memory under the filter's key")
        #expect(f.loader.requests(url.absoluteString) == 1)
        f.manager.settings.cacheKeyFilter = nil
        let plain = try await f.manager.loadImage(with: url)
        #expect(plain.cacheType == .memory)
        #expect(plain.image?.pixelSize == ImageSize(width: 40, height: 20))
    }

    @Test("Memory hits are counted once a metrics backend is set, and not before")
    func metricsSetAfterHits() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        _ = try await f.manager.loadImage(with: url)
        let metrics = TestMetrics()
        f.manager.settings.metrics = PipelineMetrics(factory: metrics)
        _ = try await f.manager.loadImage(with: url)
        _ = try await f.manager.loadImage(with: url)
        #expect(metrics.counterTotal(label: "imagepipe_cache_lookups_total", dimensions: [("tier", "memory"), ("result", "hit")]) == 2)
    }

    @Test(
        "Options that make a hit do more take the full flow",
        arguments: [
            ImageOptions.refreshCached, .fromLoaderOnly, .queryMemoryData,
        ])
    func optionsTakeTheFlow(options: ImageOptions) throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        #expect(memoryStep(f.manager, options: options, context: ImageContext()) == nil)
    }

    @Test("refreshCached still asks the loader after answering from memory")
    func refreshCached() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        f.loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 40, height: 20, color: .white)))
        _ = try await f.manager.loadImage(with: url, options: [.refreshCached])
        #expect(f.loader.requests(url.absoluteString) == 1)
    }

    @Test("A memory-only query type still hits; a disk-only one takes the flow")
    func queryCacheType() throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        var memory = ImageContext()
        memory[.queryCacheType] = .memory
        #expect(memoryStep(f.manager, options: [], context: memory) != nil)
        var disk = ImageContext()
        disk[.queryCacheType] = .disk
        #expect(memoryStep(f.manager, options: [], context: disk) == nil)
    }

    @Test("The options processor runs once per request, on a memory hit and on a miss that loads")
    func optionsProcessor() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let calls = Mutex(0)
        var settings = f.manager.settings
        settings.optionsProcessor = ImageOptionsProcessor { _, options, context in
            calls.withLock { $0 += 1 }
            return (options, context)
        }
        f.manager.settings = settings
        let result = try await f.manager.loadImage(with: url)
        #expect(result.cacheType == .memory)
        #expect(calls.withLock { $0 } == 1)
        let other = URL(string: "test://img/other.timg")!
        f.loader.answer(other.absoluteString, with: .data(TestCoder.sample(width: 4, height: 4, color: .white)))
        // A miss: its steps up to the memory run in the caller, the rest in a task, the processor once.
        let missed = try await f.manager.loadImage(with: other)
        #expect(missed.cacheType == .none)
        #expect(calls.withLock { $0 } == 2)
        #expect(f.loader.requests(other.absoluteString) == 1)
    }

    @Test("A cancelled caller gets cancelled, even on a hit")
    func cancelledCaller() async throws {
        let f = try Fixture(url: url)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let manager = f.manager, url = url
        let failure: ImagePipeError? = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await manager.loadImage(with: url)
                return nil
            } catch {
                return error as? ImagePipeError
            }
        }.value
        #expect(failure == .cancelled)
    }
}
