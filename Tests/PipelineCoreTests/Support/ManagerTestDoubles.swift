import Foundation
import Synchronization
@testable import PipelineCore

/// A two-level cache with SDWebImage's query rules in miniature: memory holds images, "disk" holds
/// bytes decoded with the request's decode options; disk hits are promoted to memory when the store
/// type allows. Records every store so tests can see what went where.
final class TwoLevelTestCache: ImageCache {
    struct Store: Sendable { let key: String; let type: ImageCacheType; let hadImage: Bool; let hadData: Bool }
    private let memory = Mutex<[String: Image]>([:])
    private let disk = Mutex<[String: Data]>([:])
    private let storeLog = Mutex<[Store]>([])
    let coders: ImageCodersManager
    let diskReads = Counter()

    init(coders: ImageCodersManager) { self.coders = coders }

    func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        if cacheType.includesMemory, let image = memory.withLock({ $0[key] }) {
            return ImageCacheResult(image: image, data: nil, cacheType: .memory)
        }
        guard cacheType.includesDisk, let data = disk.withLock({ $0[key] }) else { return nil }
        diskReads.increment()
        let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: key)
        guard let image = try? coders.decodeImage(data, options: decodeOptions, context: context) else { return nil }
        if (context[.storeCacheType] ?? .all).includesMemory { memory.withLock { $0[key] = image } }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        storeLog.withLock { $0.append(Store(key: key, type: cacheType, hadImage: image != nil, hadData: data != nil)) }
        if cacheType.includesMemory, let image { memory.withLock { $0[key] = image } }
        if cacheType.includesDisk {
            let bytes = data ?? image.map { TestCoder.encode($0.firstFrame) }
            if let bytes { disk.withLock { $0[key] = bytes } }
        }
    }

    func remove(key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { _ = memory.withLock { $0.removeValue(forKey: key) } }
        if cacheType.includesDisk { _ = disk.withLock { $0.removeValue(forKey: key) } }
    }

    func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if cacheType.includesMemory, memory.withLock({ $0[key] != nil }) { return .memory }
        if cacheType.includesDisk, disk.withLock({ $0[key] != nil }) { return .disk }
        return .none
    }

    func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory.withLock { $0.removeAll() } }
        if cacheType.includesDisk { disk.withLock { $0.removeAll() } }
    }

    var memoryKeys: [String] { memory.withLock { $0.keys.sorted() } }
    var diskKeys: [String] { disk.withLock { $0.keys.sorted() } }
    var stores: [Store] { storeLog.withLock { $0 } }
    func putOnDisk(_ data: Data, key: String) { disk.withLock { $0[key] = data } }
    func diskData(_ key: String) -> Data? { disk.withLock { $0[key] } }
}

/// A loader that answers `test://` URLs after a delay, with bytes or an error per URL, honours
/// cancellation, reports progress in a few steps, and counts requests per URL.
final class ScriptedLoader: ImageLoader {
    enum Answer: Sendable { case data(Data), error(ImagePipeError) }
    private let answers = Mutex<[String: Answer]>([:])
    private let counts = Mutex<[String: Int]>([:])
    let delay: Duration

    init(delay: Duration = .milliseconds(100)) { self.delay = delay }

    func answer(_ url: String, with answer: Answer) { answers.withLock { $0[url] = answer } }
    func requests(_ url: String) -> Int { counts.withLock { $0[url] ?? 0 } }
    var totalRequests: Int { counts.withLock { $0.values.reduce(0, +) } }

    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { url.scheme == "test" }

    func load(_ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?) async throws -> ImageLoadResult {
        counts.withLock { $0[url.absoluteString, default: 0] += 1 }
        let answer = answers.withLock { $0[url.absoluteString] } ?? .error(.badStatusCode(404))
        guard case .data(let data) = answer else {
            try await pause(delay)
            if case .error(let error) = answer { throw error }
            return ImageLoadResult(data: Data())
        }
        let steps = 4
        for step in 1...steps {
            try await pause(delay / steps)
            let received = data.count * step / steps
            progress?(ImageLoadProgress(receivedBytes: Int64(received), expectedBytes: Int64(data.count),
                                        partialData: options.contains(.progressiveLoad) ? data.prefix(received) : nil))
        }
        return ImageLoadResult(data: data)
    }

    func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        if case .loadFailed(.httpStatus, let code?, _) = error { return code == 404 }
        return error.blocksURLByDefault
    }

    private func pause(_ duration: Duration) async throws {
        do { try await Task.sleep(for: duration) } catch { throw ImagePipeError.cancelled }
    }
}

/// Inverts colours; counts its runs; its key carries a tag so tests can make distinct transformers.
struct CountingInvertTransformer: ImageTransformer {
    let tag: String
    let runs: Counter
    var fails = false
    init(tag: String = "1", runs: Counter = Counter(), fails: Bool = false) {
        self.tag = tag
        self.runs = runs
        self.fails = fails
    }
    var key: String { "Invert(\(tag))" }
    func transform(_ image: Image) throws -> Image {
        runs.increment()
        if fails { throw ImagePipeError.encodingFailed(reason: "test transformer fails") }
        let buffer = image.firstFrame.converted(to: .rgba8)
        let inverted = buffer.bytes.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
        return Image(try PixelBuffer(width: buffer.width, height: buffer.height, format: .rgba8, bytes: inverted))
    }
}

/// A manager over test doubles, plus the doubles.
struct ManagerFixture {
    let coder = TestCoder()
    let coders: ImageCodersManager
    let cache: TwoLevelTestCache
    let loader: ScriptedLoader
    let manager: ImageManager

    init(delay: Duration = .milliseconds(100)) {
        coders = ImageCodersManager(coders: [coder])
        cache = TwoLevelTestCache(coders: coders)
        loader = ScriptedLoader(delay: delay)
        manager = ImageManager(cache: cache, loader: loader, coders: coders)
    }

    /// Serves a width x height white TIMG image at `url`.
    @discardableResult
    func serve(_ url: String, width: Int = 40, height: Int = 20, color: ImageColor = .white) -> Data {
        let data = TestCoder.sample(width: width, height: height, color: color)
        loader.answer(url, with: .data(data))
        return data
    }
}
