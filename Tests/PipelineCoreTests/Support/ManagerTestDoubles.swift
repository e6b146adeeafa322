import Foundation
import Synchronization
@testable import PipelineCore
import TestSupport

extension InMemoryImageCache {
    /// A two-level cache whose disk hits decode through `coders` with the request's decode options,
    /// and whose disk keeps an image stored without bytes as TIMG.
    convenience init(coders: ImageCodersManager) {
        self.init(decode: { data, options, context, key in
            let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: key)
            return try? coders.decodeImage(data, options: decodeOptions, context: context)
        }, encode: { TestCoder.encode($0.firstFrame) })
    }
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
    let cache: InMemoryImageCache
    let loader: ScriptedLoader
    let manager: ImageManager

    init(delay: Duration = .milliseconds(100)) {
        coders = ImageCodersManager(coders: [coder])
        cache = InMemoryImageCache(coders: coders)
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
