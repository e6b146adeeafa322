import Foundation
import MetricsTestKit
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Default image cache")
struct DefaultImageCacheTests {
    let directory = TemporaryDirectory()
    let coder = TestCoder(encodesEveryFormat: true)

    func makeCache(willReadDisk: (@Sendable (String) -> Void)? = nil) -> DefaultImageCache {
        let coders = ImageCodersManager(coders: [coder])
        let disk = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(trimInterval: nil))
        let memory = MemoryCache<String, Image>(costLimit: 10 << 20, shardCount: 1)
        return DefaultImageCache(memoryCache: memory, diskCache: disk, coders: coders, willReadDisk: willReadDisk)
    }

    func query(_ cache: DefaultImageCache, _ key: String, options: ImageOptions = [], context: ImageContext = ImageContext(), type: ImageCacheType = .all) async -> ImageCacheResult? {
        await cache.query(key: key, options: options, context: context, cacheType: type)
    }

    // MARK: Query and store per cache type

    @Test("Store all: memory answers at once with .memory; after clearing memory, disk answers with .disk and the bytes")
    func storeAllThenQuery() async throws {
        let cache = makeCache()
        let image = TestImages.still()
        await cache.store(image, data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        let hit = try #require(await query(cache, "k"))
        #expect(hit.cacheType == .memory)
        #expect(hit.data == nil)
        #expect(hit.image?.firstFrame == image.firstFrame)
        await cache.clear(.memory)
        let disk = try #require(await query(cache, "k"))
        #expect(disk.cacheType == .disk)
        #expect(disk.data != nil)
        #expect(disk.image?.firstFrame == image.firstFrame)
    }

    @Test("Decode warnings survive both levels, even for re-encoded images; a new write without them drops them")
    func warningsSurviveTheCache() async throws {
        let cache = makeCache()
        let warning = ImageDecodeWarning(.truncated, message: "TEST: file is truncated")
        let damaged = TestImages.still().with { $0.warnings = [warning] }
        await cache.store(damaged, data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        #expect(try #require(await query(cache, "k", type: .memory)).image?.metadata.warnings == [warning])
        // The disk holds the image re-encoded, which decodes clean: the warning comes from beside it.
        let disk = try #require(await query(cache, "k", type: .disk))
        #expect(disk.image?.metadata.warnings == [warning])
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        #expect(try #require(await query(cache, "k", type: .disk)).image?.metadata.warnings == [])
    }

    @Test("Store memory only never touches disk; store disk only never fills memory")
    func storePerLevel() async {
        let cache = makeCache()
        await cache.store(TestImages.still(), data: nil, key: "m", options: [], context: ImageContext(), cacheType: .memory)
        #expect(await cache.contains(key: "m", cacheType: .all) == .memory)
        #expect(await cache.totalDiskCount() == 0)
        await cache.store(TestImages.still(), data: nil, key: "d", options: [], context: ImageContext(), cacheType: .disk)
        #expect(cache.memoryCache.value(forKey: "d") == nil)
        #expect(await cache.contains(key: "d", cacheType: .all) == .disk)
        #expect(await cache.contains(key: "d", cacheType: .memory) == ImageCacheType.none)
        await cache.store(nil, data: nil, key: "nothing", options: [], context: ImageContext(), cacheType: .all)
        #expect(await cache.contains(key: "nothing", cacheType: .all) == ImageCacheType.none)
    }

    @Test("Query types: .memory never reads disk, .disk skips memory, .none answers nothing")
    func queryPerType() async {
        let cache = makeCache()
        await cache.store(TestImages.still(), data: nil, key: "d", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await query(cache, "d", type: .memory) == nil)
        #expect(await query(cache, "d", type: .none) == nil)
        #expect(await query(cache, "d", type: .disk)?.cacheType == .disk)
        #expect(cache.diskCache.readCount.load(ordering: .relaxed) == 1)
    }

    @Test("Given data is written as is; without it the animation's own bytes are kept")
    func storeGivenBytes() async throws {
        let cache = makeCache()
        let bytes = TestCoder.file([TestImages.buffer()], format: .png)
        await cache.store(TestImages.still(), data: bytes, key: "given", options: [], context: ImageContext(), cacheType: .disk)
        #expect(cache.diskCache.data(forKey: "given") == bytes)
        let animated = TestImages.animated()
        await cache.store(animated, data: nil, key: "anim", options: [], context: ImageContext(), cacheType: .disk)
        #expect(cache.diskCache.data(forKey: "anim") == animated.animation?.data)
        #expect(coder.encodes.count == 0)
        let transformed = animated.with { $0.isTransformed = true }
        await cache.store(transformed, data: nil, key: "anim-transformed", options: [], context: ImageContext(), cacheType: .disk)
        #expect(coder.encodes.count == 1, "a transformed animation is encoded, not its source bytes")
        #expect(coder.encodedFormats == [.gif])
    }

    @Test("Without data, the format is the recorded one, else GIF for animations, PNG with alpha, JPEG otherwise")
    func encodeFormatChoice() async {
        #expect(TestImages.still(imageFormat: .webp).storageFormat == .webp)
        #expect(TestImages.still(format: .rgba8).storageFormat == .png)
        #expect(TestImages.still(format: .grayAlpha8).storageFormat == .png)
        #expect(TestImages.still(format: .rgb8).storageFormat == .jpeg)
        let cache = makeCache()
        await cache.store(TestImages.still(format: .rgba8), data: nil, key: "a", options: [], context: ImageContext(), cacheType: .disk)
        await cache.store(TestImages.still(format: .rgb8), data: nil, key: "b", options: [], context: ImageContext(), cacheType: .disk)
        #expect(coder.encodedFormats == [.png, .jpeg])
    }

    @Test("The context's coder and encode options are used for encoding and decoding")
    func contextCoder() async throws {
        let cache = makeCache()
        let custom = TestCoder(encodesEveryFormat: true)
        var context = ImageContext()
        context[.imageCoder] = custom
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: context, cacheType: .disk)
        #expect(custom.encodes.count == 1)
        #expect(coder.encodes.count == 0)
        _ = try #require(await query(cache, "k", context: context))
        #expect(custom.decodes.count == 1)
        #expect(coder.decodes.count == 0)
    }

    @Test("The request's encode options reach the coder when the cache encodes: firstFrameOnly writes one frame of a transformed animation")
    func requestEncodeOptions() async throws {
        let cache = makeCache()
        var animation = TestImages.animated(frames: 3)
        animation.metadata.isTransformed = true
        var context = ImageContext()
        context[.encodeOptions] = ImageEncodeOptions(firstFrameOnly: true)
        await cache.store(animation, data: nil, key: "one", options: [], context: context, cacheType: .disk)
        await cache.store(animation, data: nil, key: "all", options: [], context: ImageContext(), cacheType: .disk)
        let frames = { (key: String) in try self.coder.decode(try #require(cache.diskCache.data(forKey: key)), options: ImageDecodeOptions()).frameCount }
        #expect(try frames("one") == 1)
        #expect(try frames("all") == 3)
    }

    // MARK: Promotion

    @Test("A disk hit is promoted to memory when the store cache type includes memory, not otherwise")
    func promotion() async throws {
        let cache = makeCache()
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        var diskOnly = ImageContext()
        diskOnly[.storeCacheType] = .disk
        #expect(await query(cache, "k", context: diskOnly)?.cacheType == .disk)
        #expect(cache.memoryCache.value(forKey: "k") == nil)
        #expect(await query(cache, "k")?.cacheType == .disk)
        #expect(cache.memoryCache.value(forKey: "k") != nil)
        #expect(await query(cache, "k")?.cacheType == .memory)
    }

    @Test("A thumbnail decoded for a full-size key is promoted under the thumbnail key only")
    func thumbnailPromotion() async throws {
        let cache = makeCache()
        let key = "https://example.com/a.png"
        await cache.store(TestImages.still(), data: nil, key: key, options: [], context: ImageContext(), cacheType: .disk)
        var context = ImageContext()
        context[.thumbnailPixelSize] = ImageSize(width: 2, height: 2)
        let hit = try #require(await query(cache, key, context: context))
        #expect(hit.image?.isThumbnail == true)
        #expect(cache.memoryCache.value(forKey: key) == nil)
        let thumbnailKey = ImageCacheKey.thumbnailed(key, pixelSize: ImageSize(width: 2, height: 2), preserveAspectRatio: true)
        #expect(cache.memoryCache.value(forKey: thumbnailKey) != nil)
        #expect(DefaultImageCache.isThumbnailKey(thumbnailKey))
    }

    @Test("First frame only turns an animated memory hit into a still image; otherwise the same animation")
    func firstFrameOnly() async throws {
        let cache = makeCache()
        let animated = TestImages.animated(frames: 3)
        await cache.store(animated, data: nil, key: "gif", options: [], context: ImageContext(), cacheType: .memory)
        let plain = try #require(await query(cache, "gif"))
        #expect(plain.image?.frameCount == 3)
        #expect(plain.image?.animation === animated.animation)
        let still = try #require(await query(cache, "gif", options: .decodeFirstFrameOnly))
        #expect(still.cacheType == .memory)
        #expect(still.image?.isAnimated == false)
        #expect(still.image?.firstFrame == animated.firstFrame)
    }

    @Test("queryMemoryData: a memory hit also reads the bytes, and reports .disk as SDWebImage does")
    func queryMemoryData() async throws {
        let cache = makeCache()
        let image = TestImages.still()
        await cache.store(image, data: nil, key: "k", options: [], context: ImageContext(), cacheType: .all)
        let hit = try #require(await query(cache, "k", options: .queryMemoryData))
        #expect(hit.cacheType == .disk)
        #expect(hit.data != nil)
        #expect(coder.decodes.count == 0, "the memory image is used, not decoded again")
        await cache.remove(key: "k", cacheType: .disk)
        let noBytes = try #require(await query(cache, "k", options: .queryMemoryData))
        #expect(noBytes.data == nil)
        #expect(noBytes.image != nil)
    }

    @Test("Bytes on disk that are not an image are a miss and are removed")
    func corruptFile() async throws {
        let cache = makeCache()
        await cache.store(nil, data: Data("TPX1 but garbage".utf8), key: "bad", options: [], context: ImageContext(), cacheType: .disk)
        await cache.store(nil, data: Data("not an image at all".utf8), key: "junk", options: [], context: ImageContext(), cacheType: .disk)
        #expect(cache.diskCache.containsData(forKey: "bad") && cache.diskCache.containsData(forKey: "junk"))
        #expect(await query(cache, "bad") == nil)
        #expect(await query(cache, "junk") == nil)
        #expect(!cache.diskCache.containsData(forKey: "bad"))
        #expect(!cache.diskCache.containsData(forKey: "junk"))
    }

    @Test("An entry cut short on disk, or without the length written with it, is a miss and is removed, never a damaged image")
    func entryNotWhole() async throws {
        let cache = makeCache()
        let bytes = TestCoder.sample(width: 40, height: 40)
        await cache.store(nil, data: bytes, key: "cut", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await query(cache, "cut")?.image != nil, "whole, it is a hit")
        await cache.clear(.memory)
        let file = cache.diskCache.filePath(forKey: "cut")
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: UInt64(bytes.count / 2))
        try handle.close()
        #expect(await query(cache, "cut") == nil)
        #expect(!cache.diskCache.containsData(forKey: "cut"))

        try cache.diskCache.setData(bytes, forKey: "bare")
        #expect(await query(cache, "bare") == nil, "no length was written with it")
        #expect(!cache.diskCache.containsData(forKey: "bare"))
    }

    @Test("Remove and clear per level; totals count the disk")
    func removeAndClear() async {
        let cache = makeCache()
        for key in ["a", "b", "c"] {
            await cache.store(TestImages.still(), data: nil, key: key, options: [], context: ImageContext(), cacheType: .all)
        }
        #expect(await cache.totalDiskCount() == 3)
        #expect(await cache.totalDiskSize() > 0)
        await cache.remove(key: "a", cacheType: .memory)
        #expect(await cache.contains(key: "a", cacheType: .all) == .disk)
        await cache.remove(key: "b", cacheType: .all)
        #expect(await cache.contains(key: "b", cacheType: .all) == ImageCacheType.none)
        await cache.clear(.disk)
        #expect(await cache.totalDiskCount() == 0)
        #expect(await cache.contains(key: "c", cacheType: .all) == .memory)
        await cache.clear(.memory)
        #expect(await cache.contains(key: "c", cacheType: .all) == ImageCacheType.none)
    }

    // MARK: Coalescing and cancellation

    @Test("Concurrent queries of one key share a single disk read")
    func coalescedReads() async throws {
        let gate = BlockingGate()
        let cache = makeCache { _ in gate.wait() }
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        let diskOnly = ImageContext().with(.storeCacheType, .disk)  // no promotion: every query goes to disk
        let queries = 10
        let results = await withTaskGroup(of: ImageCacheResult?.self) { group in
            for _ in 0..<queries { group.addTask { await query(cache, "k", context: diskOnly) } }
            for _ in 0..<500 where cache.diskReadWaiters(forKey: "k") < queries { try? await Task.sleep(for: .milliseconds(2)) }
            gate.open()
            return await group.reduce(into: [ImageCacheResult?]()) { $0.append($1) }
        }
        #expect(results.count == queries)
        #expect(results.allSatisfy { $0?.cacheType == .disk && $0?.image != nil })
        #expect(cache.diskCache.readCount.load(ordering: .relaxed) == 1)
    }

    @Test("A cancelled query answers nil once, at once, while the disk read is still blocked")
    func cancellation() async throws {
        let gate = BlockingGate()
        let cache = makeCache { _ in gate.wait() }
        await cache.store(TestImages.still(), data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        let answers = Atomic<Int>(0)
        let task = Task {
            let result = await query(cache, "k")
            answers.add(1, ordering: .relaxed)
            return result
        }
        for _ in 0..<500 where cache.diskReadWaiters(forKey: "k") < 1 { try await Task.sleep(for: .milliseconds(2)) }
        task.cancel()
        let result = await task.value
        #expect(result == nil)
        #expect(answers.load(ordering: .relaxed) == 1)
        gate.open()
        // The shared read finishes for nobody; a later query still works.
        #expect(await query(cache, "k")?.image != nil)
        #expect(answers.load(ordering: .relaxed) == 1)
    }

    // MARK: Directories

    @Test("Namespaces are separate folders under the directory; odd names stay inside it")
    func namespaces() async {
        let a = DefaultImageCache(namespace: "a", directory: directory.url, coders: ImageCodersManager(coders: [coder]))
        let b = DefaultImageCache(namespace: "b", directory: directory.url, coders: ImageCodersManager(coders: [coder]))
        await a.store(nil, data: Data("x".utf8), key: "k", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await a.contains(key: "k", cacheType: .disk) == .disk)
        #expect(await b.contains(key: "k", cacheType: .disk) == ImageCacheType.none)
        #expect(a.diskCache.directory.lastPathComponent == "a")
        for odd in ["..", "../x", "/", "."] {
            #expect(!DefaultImageCache.directoryName(forNamespace: odd).contains("/"))
            #expect(DefaultImageCache.directoryName(forNamespace: odd) != "..")
        }
    }

    @Test("The shared cache lives in namespace `default` under the XDG cache directory")
    func sharedDirectory() {
        let path = DefaultImageCache.shared.diskCache.directory.path
        #expect(path.hasSuffix("/imagepipe/default"))
        #expect(DefaultImageCache.shared === DefaultImageCache.shared)
    }
}

@Suite("Default image cache: failed stores")
struct DefaultImageCacheStoreFailureTests {
    let directory = TemporaryDirectory()
    let log = LogCapture()

    /// A manager whose disk cache lives at `folder`, logging to `log`.
    func manager(diskFolder folder: URL) -> (ImageManager, TestLoader) {
        let coders = ImageCodersManager(coders: [TestCoder()])
        let disk = DiskCache(directory: folder, configuration: DiskCache.Configuration(trimInterval: nil, logger: log.logger))
        let cache = DefaultImageCache(memoryCache: MemoryCache(), diskCache: disk, coders: coders)
        let loader = TestLoader.scripted(delay: .zero)
        return (ImageManager(cache: cache, loader: loader, coders: coders), loader)
    }

    @Test("A store the disk refuses (even to root: the folder's parent is a file) is one warning with the key; the load succeeds")
    func unwritableFolder() async throws {
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let (manager, loader) = manager(diskFolder: file.appendingPathComponent("cache"))
        let url = "test://host/a.png"
        loader.answer(url, with: .data(TestCoder.sample()))
        let result = try await manager.loadImage(with: URL(string: url), options: [.waitStoreCache])
        #expect(result.image != nil)
        let warnings = log.entries.filter { $0.level == .warning }
        try #require(warnings.count == 1)
        #expect(warnings[0].metadata["cache.key"] == .string(url))
        #expect(warnings[0].message.contains("cannot store"))
        #expect(warnings[0].message.contains("Not a directory"))
    }

    @Test("A store into a folder of someone else's files is a warning naming the folder's problem; the load succeeds")
    func foreignFolder() async throws {
        try Data("mine".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        let (manager, loader) = manager(diskFolder: directory.url)
        let url = "test://host/b.png"
        loader.answer(url, with: .data(TestCoder.sample()))
        #expect(try await manager.loadImage(with: URL(string: url), options: [.waitStoreCache]).image != nil)
        let warnings = log.entries.filter { $0.level == .warning }
        try #require(warnings.count == 1)
        #expect(warnings[0].message.contains("is not a cache folder") && warnings[0].message.contains("notes.txt"))
        #expect(directory.allNames == ["notes.txt"])
    }

    @Test("A dropped store is counted by reason; encodes and disk decodes are timed")
    func droppedStoreCounted() async throws {
        let metrics = TestMetrics()
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let coders = ImageCodersManager(coders: [TestCoder()])
        let unwritable = DefaultImageCache(
            memoryCache: MemoryCache(),
            diskCache: DiskCache(
                directory: file.appendingPathComponent("cache"),
                configuration: DiskCache.Configuration(trimInterval: nil, metrics: PipelineMetrics(factory: metrics))), coders: coders)
        let image = try coders.decode(TestCoder.sample(), options: ImageDecodeOptions())
        await unwritable.store(image, data: nil, key: "k", options: [], context: ImageContext(), cacheType: .disk)
        #expect(metrics.counterTotal(label: "imagepipe_cache_store_failures_total", dimensions: [("reason", "write")]) == 1)
        #expect(metrics.timers(label: "imagepipe_encode_duration_seconds").first?.values.count == 1)

        let writable = DefaultImageCache(
            memoryCache: MemoryCache(),
            diskCache: DiskCache(
                directory: directory.url.appendingPathComponent("cache"),
                configuration: DiskCache.Configuration(trimInterval: nil, metrics: PipelineMetrics(factory: metrics))), coders: coders)
        await writable.store(nil, data: TestCoder.sample(), key: "k", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await writable.query(key: "k", options: [], context: ImageContext(), cacheType: .disk)?.image != nil)
        #expect(metrics.timers(label: "imagepipe_decode_duration_seconds", dimensions: [("source", "disk")]).first?.values.count == 1)
        #expect(metrics.counterTotal(label: "imagepipe_cache_store_failures_total", dimensions: [("reason", "write")]) == 1)
    }

    @Test("A cache without a logger says nothing and still fails softly")
    func silentByDefault() async throws {
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let cache = DefaultImageCache(
            memoryCache: MemoryCache(),
            diskCache: DiskCache(
                directory: file.appendingPathComponent("cache"), configuration: DiskCache.Configuration(trimInterval: nil)))
        await cache.store(nil, data: Data("bytes".utf8), key: "k", options: [], context: ImageContext(), cacheType: .disk)
        #expect(await cache.contains(key: "k", cacheType: .all) == ImageCacheType.none)
    }
}

/// Holds disk reads until the test opens it.
final class BlockingGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let opened = Mutex(false)

    func wait() {
        if opened.withLock({ $0 }) { return }
        semaphore.wait()
        semaphore.signal()  // let the next waiter through too
    }

    func open() {
        opened.withLock { $0 = true }
        semaphore.signal()
    }
}
