import Foundation
import ImagePipe
import PipelineCore
import Synchronization

extension InMemoryImageCache {
    /// A two-level cache whose disk hits decode through `coders` with the request's decode options,
    /// and whose disk keeps an image stored without bytes as TIMG.
    public convenience init(coders: ImageCodersManager) {
        self.init(
            decode: { data, options, context, key in
                let decodeOptions = ImageDecodeOptions(options: options, context: context, cacheKey: key)
                return try? coders.decodeImage(data, options: decodeOptions, context: context)
            }, encode: { TestCoder.encode($0.firstFrame) })
    }
}

extension TestLoader {
    /// The manager tests' loader: `test://` URLs, HTTP 404 for a URL without an answer, and of the
    /// HTTP failures only a 404 blocks its URL.
    public static func scripted(delay: Duration = .milliseconds(100)) -> TestLoader {
        TestLoader(
            scheme: "test", delay: delay, missing: .error(.stubBadStatus(404)),
            blocks: { error in
                if case .loadFailed(.stubHTTPStatus, let code?, _) = error { return code == 404 }
                return error.blocksURLByDefault
            })
    }
}

/// Inverts colours; counts its runs; its key carries a tag so tests can make distinct transformers.
public struct CountingInvertTransformer: ImageTransformer {
    public let tag: String
    public let runs: Counter
    public var fails = false
    public init(tag: String = "1", runs: Counter = Counter(), fails: Bool = false) {
        self.tag = tag
        self.runs = runs
        self.fails = fails
    }
    public var key: String { "Invert(\(tag))" }
    public func transform(_ image: Image) throws -> Image {
        runs.increment()
        if fails { throw ImagePipeError.encodingFailed(reason: "test transformer fails") }
        let buffer = image.firstFrame.converted(to: .rgba8)
        let inverted = buffer.bytes.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
        return Image(try PixelBuffer(width: buffer.width, height: buffer.height, format: .rgba8, bytes: inverted))
    }
}

/// A manager over test doubles, plus the doubles.
public struct ManagerFixture: SampleServing, Sendable {
    public let coder = TestCoder()
    public let coders: ImageCodersManager
    public let cache: InMemoryImageCache
    public let loader: TestLoader
    public let manager: ImageManager

    public init(delay: Duration = .milliseconds(100)) {
        coders = ImageCodersManager(coders: [coder])
        cache = InMemoryImageCache(coders: coders)
        loader = TestLoader.scripted(delay: delay)
        manager = ImageManager(cache: cache, loader: loader, coders: coders)
    }

}

/// A manager over a loader of `gated://` URLs. `serve(_:width:gate:)` answers a URL with a TIMG
/// image that a given gate holds back, so a test decides the order of events instead of racing delays.
public struct GatedFixture: SampleServing, Sendable {
    public let loader = TestLoader(scheme: "gated", missing: .error(.stubBadStatus(404)))
    public let manager: ImageManager

    public init() {
        let coders = ImageCodersManager(coders: [TestCoder()])
        manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders)
    }
}
