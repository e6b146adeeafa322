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

extension TestLoader {
    /// The manager tests' loader: `test://` URLs, HTTP 404 for a URL without an answer, and of the
    /// HTTP failures only a 404 blocks its URL.
    static func scripted(delay: Duration = .milliseconds(100)) -> TestLoader {
        TestLoader(scheme: "test", delay: delay, missing: .error(.badStatusCode(404)), blocks: { error in
            if case .loadFailed(.httpStatus, let code?, _) = error { return code == 404 }
            return error.blocksURLByDefault
        })
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
struct ManagerFixture: SampleServing {
    let coder = TestCoder()
    let coders: ImageCodersManager
    let cache: InMemoryImageCache
    let loader: TestLoader
    let manager: ImageManager

    init(delay: Duration = .milliseconds(100)) {
        coders = ImageCodersManager(coders: [coder])
        cache = InMemoryImageCache(coders: coders)
        loader = TestLoader.scripted(delay: delay)
        manager = ImageManager(cache: cache, loader: loader, coders: coders)
    }

}
