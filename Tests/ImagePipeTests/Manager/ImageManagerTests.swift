import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Image manager flow")
struct ImageManagerTests {
    let url = URL(string: "test://img/photo.timg")!

    @Test("A load downloads, decodes, stores once under its key in memory and on disk, and reports the loader as source")
    func plainLoad() async throws {
        let f = ManagerFixture()
        let data = f.serve(url.absoluteString)
        let result = try await f.manager.loadImage(with: url)
        #expect(result.image?.pixelSize == ImageSize(width: 40, height: 20))
        #expect(result.data == data)
        #expect(result.cacheType == .none)
        #expect(result.url == url)
        // The store runs in the background; then: one store of both levels under the URL key.
        try #require(await eventually { f.cache.stores.count == 1 })
        #expect(f.cache.stores.map(\.key) == [url.absoluteString])
        #expect(f.cache.stores.first?.type == .all)
        // The second load is a memory hit and makes no request.
        let again = try await f.manager.loadImage(with: url)
        #expect(again.cacheType == .memory)
        #expect(f.loader.requests(url.absoluteString) == 1)
    }

    @Test("Ten simultaneous loads with thumbnail sizes 490…499 make one download and ten sizes")
    func thumbnailsShareDownload() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString, width: 1000, height: 1000)
        let sizes = try await withThrowingTaskGroup(of: ImageSize?.self) { group in
            for side in 490...499 {
                group.addTask {
                    var context = ImageContext()
                    context[.thumbnailPixelSize] = ImageSize(width: side, height: side)
                    return try await f.manager.loadImage(with: url, context: context).image?.pixelSize
                }
            }
            var sizes: [ImageSize] = []
            for try await size in group { if let size { sizes.append(size) } }
            return sizes
        }
        #expect(f.loader.requests(url.absoluteString) == 1)
        #expect(Set(sizes.map(\.width)) == Set(490...499))
        #expect(f.manager.decodes.startedCount == 10)
    }

    @Test("A thumbnail of original bytes on disk is made without the network and stored under the thumbnail key")
    func thumbnailFromDisk() async throws {
        let f = ManagerFixture()
        f.cache.putOnDisk(TestCoder.sample(width: 400, height: 200), key: url.absoluteString)
        var context = ImageContext()
        context[.thumbnailPixelSize] = ImageSize(width: 100, height: 100)
        context[.storeCacheType] = .disk
        let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(result.image?.pixelSize == ImageSize(width: 100, height: 50))
        #expect(result.cacheType == .disk)
        #expect(result.data == nil, "a thumbnail's bytes are not the original's")
        #expect(f.loader.totalRequests == 0)
        let thumbnailKey = f.manager.cacheKey(for: url, context: context)
        #expect(thumbnailKey == "test://img/photo-Thumbnail(%7B100.000000,100.000000%7D,1).timg")
        #expect(f.cache.diskKeys.contains(thumbnailKey))
        #expect(!f.cache.stores.contains { $0.key == url.absoluteString }, "bytes just read from disk are not written back")
        let stored = try #require(f.cache.diskData(thumbnailKey))
        #expect(try f.coders.decode(stored, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 100, height: 50))
    }

    @Test("A cache-only miss completes with no image and no error, and makes no request")
    func fromCacheOnlyMiss() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        let result = try await f.manager.loadImage(with: url, options: [.fromCacheOnly])
        #expect(result.image == nil)
        #expect(result.cacheType == .none)
        #expect(f.loader.totalRequests == 0)
    }

    @Test("fromLoaderOnly skips the caches even when they hold the image")
    func fromLoaderOnly() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
        let result = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly])
        #expect(result.cacheType == .none)
        #expect(f.loader.requests(url.absoluteString) == 2)
    }

    @Test(
        "Query and store cache types pick the levels",
        arguments: [
            (ImageCacheType.memory, ImageCacheType.memory, ImageCacheType.memory),
            (.disk, .disk, .disk),
            (.all, .disk, .disk),
            (.memory, .disk, nil),
            (.none, .all, nil),
        ] as [(ImageCacheType, ImageCacheType, ImageCacheType?)])
    func cacheTypes(store: ImageCacheType, query: ImageCacheType, expected: ImageCacheType?) async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        var context = ImageContext()
        context[.storeCacheType] = store
        context[.originalStoreCacheType] = ImageCacheType.none
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        var queryContext = ImageContext()
        queryContext[.queryCacheType] = query
        let result = try await f.manager.loadImage(with: url, options: [.fromCacheOnly], context: queryContext)
        let found: ImageCacheType? = result.image == nil ? nil : result.cacheType
        #expect(found == expected)
    }

    @Test("Cancelling right after the start completes once, with cancelled")
    func cancelRightAway() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        let completions = Mutex<[Result<ImageResult, ImagePipeError>]>([])
        let task = f.manager.loadImage(with: url) { result in completions.withLock { $0.append(result) } }
        task.cancel()
        _ = try? await task.result()
        try #require(await eventually { !f.manager.isRunning })
        let all = completions.withLock { $0 }
        #expect(all.count == 1)
        if case .failure(let error)? = all.first { #expect(error == .cancelled) } else { Issue.record("expected cancelled, got \(all)") }
        #expect(!f.manager.isRunning)
    }

    @Test("Cancelling the calling task cancels an async load")
    func asyncCancellation() async throws {
        let f = ManagerFixture(delay: .seconds(30))
        f.serve(url.absoluteString)
        let load = Task { try await f.manager.loadImage(with: url) }
        try #require(await eventually { f.manager.isRunning })
        load.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await load.value }
    }

    @Test("Cancelling one of several identical loads leaves the others running")
    func cancelOneOfMany() async throws {
        let f = ManagerFixture(delay: .milliseconds(300))
        f.serve(url.absoluteString)
        let cancelled = f.manager.imageTask(with: url)
        let others = (0..<3).map { _ in f.manager.imageTask(with: url) }
        try #require(await eventually { f.loader.requests(url.absoluteString) == 1 })
        cancelled.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await cancelled.result() }
        for task in others { #expect(try await task.result().image != nil) }
        #expect(f.loader.requests(url.absoluteString) == 1)
    }

    @Test("Fifty identical loads with a transformer make one download, one decode and one transform")
    func stageCoalescing() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        let runs = Counter()
        let context = ImageContext().with(.imageTransformer, CountingInvertTransformer(runs: runs))
        let results = try await withThrowingTaskGroup(of: ImageResult.self) { group in
            for _ in 0..<50 { group.addTask { try await f.manager.loadImage(with: url, context: context) } }
            var all: [ImageResult] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.image?.metadata.isTransformed == true && $0.data == nil })
        #expect(f.loader.requests(url.absoluteString) == 1)
        #expect(f.coder.decodes.count == 1)
        #expect(runs.count == 1)
    }

    @Test("Failed-URL list: permanent failures block the URL, retryFailed retries and clears it, transient ones never block")
    func blockedURLs() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        let missing = URL(string: "test://img/missing.timg")!
        await #expect(throws: ImagePipeError.stubBadStatus(404)) { try await f.manager.loadImage(with: missing) }
        #expect(f.manager.blockedURLs.contains(missing))
        await #expect(throws: ImagePipeError.blockedURL(missing.absoluteString)) { try await f.manager.loadImage(with: missing) }
        #expect(f.loader.requests(missing.absoluteString) == 1, "a blocked URL is not requested")
        f.serve(missing.absoluteString)
        _ = try await f.manager.loadImage(with: missing, options: [.retryFailed])
        #expect(!f.manager.blockedURLs.contains(missing), "a success with retryFailed clears the URL")

        let flaky = URL(string: "test://img/flaky.timg")!
        f.loader.answer(flaky.absoluteString, with: .error(.stubTransport(kind: .stubTimedOut, message: "slow")))
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: flaky) }
        #expect(!f.manager.blockedURLs.contains(flaky))

        let corrupt = URL(string: "test://img/corrupt.timg")!
        f.loader.answer(corrupt.absoluteString, with: .data(Data("TIMGxx".utf8)))
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: corrupt) }
        #expect(f.manager.blockedURLs.contains(corrupt), "undecodable data is permanent")
    }

    @Test("A blocked URL is tried again once blockedURLLifetime has passed, without retryFailed")
    func blockExpires() async throws {
        let f = ManagerFixture(delay: .zero)
        // Long enough that a loaded machine's second call still finds the block.
        f.manager.settings.blockedURLLifetime = .seconds(2)
        let missing = URL(string: "test://img/uploaded-later.timg")!
        await #expect(throws: ImagePipeError.stubBadStatus(404)) { try await f.manager.loadImage(with: missing) }
        await #expect(throws: ImagePipeError.blockedURL(missing.absoluteString)) { try await f.manager.loadImage(with: missing) }
        f.serve(missing.absoluteString)
        try await Task.sleep(for: .milliseconds(2100))
        #expect(try await f.manager.loadImage(with: missing).image != nil)
        #expect(f.loader.requests(missing.absoluteString) == 2)
    }

    @Test("A missing or empty URL fails with invalidURL")
    func invalidURL() async {
        let f = ManagerFixture()
        await #expect(throws: ImagePipeError.invalidURL("")) { try await f.manager.loadImage(with: nil) }
    }

    @Test("refreshCached answers with the cached image first, then with the server's only if it changed")
    func refreshCached() async throws {
        let f = ManagerFixture(delay: .milliseconds(20))
        f.serve(url.absoluteString, color: .white)
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])

        // Unchanged: the loader says not modified → one completion only.
        f.loader.answer(url.absoluteString, with: .error(.cacheNotModified))
        let unchanged = Mutex<[ImageResult]>([])
        let task = f.manager.loadImage(with: url, options: [.refreshCached]) { result in
            if case .success(let value) = result { unchanged.withLock { $0.append(value) } }
        }
        _ = try await task.result()
        #expect(unchanged.withLock { $0.map(\.cacheType) } == [.memory])

        // Changed: cached first, then the new image.
        f.serve(url.absoluteString, color: .black)
        var events: [ImageCacheType] = []
        for await event in f.manager.imageTask(with: url, options: [.refreshCached]).events {
            if case .completed(let result) = event { events.append(result.cacheType) }
        }
        #expect(events == [.memory, .none])
        #expect(f.loader.requests(url.absoluteString) == 3)
    }

    @Test("Progress reaches the total, and progressive loads deliver partial images before the final one")
    func progress() async throws {
        let f = ManagerFixture()
        f.serve(url.absoluteString)
        let progress = Mutex<[ImageLoadProgress]>([])
        let task = f.manager.imageTask(with: url) { event in
            if case .progress(let value) = event { progress.withLock { $0.append(value) } }
        }
        _ = try await task.result()
        let seen = progress.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.last?.receivedBytes == seen.last?.expectedBytes)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.receivedBytes <= $1.receivedBytes })
    }

    @Test("The callback form completes on the context's executor, once")
    func callbackExecutor() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        f.serve(url.absoluteString)
        let queue = DispatchQueue(label: "test.callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        var context = ImageContext()
        context[.callbackExecutor] = DispatchQueueCallbackExecutor(queue)
        let calls = Mutex<[Int?]>([])
        let task = f.manager.loadImage(with: url, context: context) { _ in
            calls.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        _ = try await task.result()
        try #require(await eventually { !calls.withLock { $0 }.isEmpty })
        #expect(calls.withLock { $0 } == [7])
    }

    @Test("Per-request overrides: the context's loader, cache, and NoImageTransformer win over the manager's")
    func overrides() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        let runs = Counter()
        var settings = f.manager.settings
        settings.transformer = CountingInvertTransformer(runs: runs)
        f.manager.settings = settings
        f.serve(url.absoluteString)
        var context = ImageContext()
        context[.imageTransformer] = NoImageTransformer()
        let plain = try await f.manager.loadImage(with: url, context: context)
        #expect(plain.image?.metadata.isTransformed == false)
        #expect(runs.count == 0)
        #expect(f.manager.cacheKey(for: url) == "test://img/photo-Invert(1).timg")
        #expect(f.manager.cacheKey(for: url, context: context) == url.absoluteString)

        let otherLoader = TestLoader.scripted(delay: .milliseconds(10))
        otherLoader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 3, height: 3)))
        let otherCache = InMemoryImageCache(coders: f.coders)
        context[.imageLoader] = otherLoader
        context[.imageCache] = otherCache
        let viaOthers = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly, .waitStoreCache], context: context)
        #expect(viaOthers.image?.pixelSize == ImageSize(width: 3, height: 3))
        #expect(otherLoader.requests(url.absoluteString) == 1)
        #expect(!otherCache.memoryKeys.isEmpty)
    }

    @Test("The options processor can rewrite a request before it runs")
    func optionsProcessor() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        f.serve(url.absoluteString)
        var settings = f.manager.settings
        settings.optionsProcessor = ImageOptionsProcessor { _, options, context in (options.union(.fromCacheOnly), context) }
        f.manager.settings = settings
        let result = try await f.manager.loadImage(with: url)
        #expect(result.image == nil)
        #expect(f.loader.totalRequests == 0)
    }

    @Test("A transformed image is stored under the transformed key; the original bytes under the URL, on disk only")
    func transformStores() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        let data = f.serve(url.absoluteString)
        var context = ImageContext()
        context[.imageTransformer] = CountingInvertTransformer(tag: "x")
        let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(result.image?.firstFrame.color(x: 0, y: 0) == .black)
        let transformedKey = "test://img/photo-Invert(x).timg"
        #expect(f.cache.memoryKeys == [transformedKey])
        #expect(f.cache.diskKeys == [transformedKey, url.absoluteString].sorted())
        #expect(f.cache.diskData(url.absoluteString) == data)
        // A later request for another transform of the same URL reuses the original from disk.
        context[.imageTransformer] = CountingInvertTransformer(tag: "y")
        let second = try await f.manager.loadImage(with: url, context: context)
        #expect(second.cacheType == .disk)
        #expect(f.loader.requests(url.absoluteString) == 1)
    }

    @Test("Animated images skip the transformer unless transformAnimatedImage is set; a failing transformer leaves the image")
    func transformerRules() async throws {
        let f = ManagerFixture(delay: .milliseconds(10))
        f.serve(url.absoluteString)
        let runs = Counter()
        var context = ImageContext()
        context[.imageTransformer] = CountingInvertTransformer(tag: "fails", runs: runs, fails: true)
        let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(runs.count == 1)
        #expect(result.image?.metadata.isTransformed == false)
        #expect(!f.cache.memoryKeys.contains { $0.contains("Invert") }, "an untransformed image is not stored under the transformed key")
    }

    @Test("A transform over the pixel limit fails the request with the limit's error and never blocks the URL")
    func transformOverPixelLimit() async throws {
        let f = ManagerFixture(delay: .milliseconds(1))
        f.serve(url.absoluteString)
        // Even a policy that blocks every failure leaves the URL alone: the request was at fault.
        f.manager.settings.shouldBlockURL = { _, _ in true }
        var context = ImageContext()
        context[.imageTransformer] = ResizingTransformer(size: ImageSize(width: 100_000, height: 100_000))
        await #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 10_000_000_000, maximum: ImageDecodeOptions.defaultMaxPixels)) {
            try await f.manager.loadImage(with: url, context: context)
        }
        #expect(!f.manager.blockedURLs.contains(url))
        context[.imageTransformer] = ResizingTransformer(size: ImageSize(width: 10, height: 10))
        let small = try await f.manager.loadImage(with: url, context: context)
        #expect(small.image?.pixelSize == ImageSize(width: 10, height: 10))
    }

    @Test("A transform of an original from the memory cache is held to this request's pixel limit, not the decoding request's")
    func transformOfCachedOriginalUsesRequestLimit() async throws {
        let f = ManagerFixture(delay: .milliseconds(1))
        f.serve(url.absoluteString)
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
        var context = ImageContext()
        context[.originalQueryCacheType] = .memory
        context[.decodeOptions] = ImageDecodeOptions(maxPixels: 900)
        context[.imageTransformer] = ResizingTransformer(size: ImageSize(width: 40, height: 40))
        await #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 1600, maximum: 900)) {
            try await f.manager.loadImage(with: url, context: context)
        }
        context[.decodeOptions] = ImageDecodeOptions(maxPixels: 1600)
        let result = try await f.manager.loadImage(with: url, context: context)
        #expect(result.cacheType == .memory && result.image?.pixelSize == ImageSize(width: 40, height: 40))
        #expect(f.loader.requests(url.absoluteString) == 1)
    }

    @Test("cancelAll cancels every running load")
    func cancelAll() async throws {
        let f = ManagerFixture(delay: .seconds(30))
        f.serve(url.absoluteString)
        let tasks = (0..<5).map { i in f.manager.imageTask(with: URL(string: "test://img/\(i).timg")!) }
        #expect(f.manager.runningCount == 5)
        f.manager.cancelAll()
        for task in tasks { await #expect(throws: ImagePipeError.cancelled) { try await task.result() } }
        try #require(await eventually { !f.manager.isRunning })
    }
}
