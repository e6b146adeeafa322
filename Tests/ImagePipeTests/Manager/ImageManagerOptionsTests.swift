import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// Options and context keys whose effect only a load through the manager shows.
@Suite("Image manager options")
struct ImageManagerOptionsTests {
    let url = URL(string: "test://options/animation.tpx")!

    /// A manager whose loader serves a three-frame animation at `url`.
    struct AnimationFixture {
        let loader = TestLoader.scripted(delay: .zero)
        let cache: InMemoryImageCache
        let manager: ImageManager

        init(url: URL) {
            let coders = ImageCodersManager(coders: [TestCoder(encodesEveryFormat: true)])
            cache = InMemoryImageCache(coders: coders)
            manager = ImageManager(cache: cache, loader: loader, coders: coders)
            let frames = (0..<3).map { TestImages.buffer(value: UInt8(10 * $0)) }
            loader.answer(url.absoluteString, with: .data(TestCoder.file(frames, format: .gif)))
        }
    }

    @Test("An animation is left untransformed unless transformAnimatedImage is set, then it is transformed")
    func transformAnimatedImage() async throws {
        let f = AnimationFixture(url: url)
        let runs = Counter()
        let context = ImageContext().with(.imageTransformer, CountingInvertTransformer(tag: "anim", runs: runs))
        let skipped = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly], context: context)
        #expect(skipped.image?.isAnimated == true)
        #expect(skipped.image?.metadata.isTransformed == false)
        #expect(runs.count == 0)

        let transformed = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly, .transformAnimatedImage], context: context)
        #expect(runs.count == 1)
        #expect(transformed.image?.metadata.isTransformed == true)
        #expect(transformed.image?.firstFrame.color(x: 0, y: 0) == .white)
    }

    @Test("preloadAllFrames decodes every frame of a loaded animation up front; without it frames wait to be asked for")
    func preloadAllFrames() async throws {
        let f = AnimationFixture(url: url)
        let preloaded = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly, .preloadAllFrames])
        let animation = try #require(preloaded.image?.animation)
        #expect(animation.heldFrameCount == 2, "every frame but the poster, which is always held")

        let lazy = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly])
        #expect(try #require(lazy.image?.animation).heldFrameCount == 0)
    }

    @Test("The cache serializer's bytes are what the disk cache stores, from the context or the manager's settings")
    func cacheSerializer() async throws {
        let f = ManagerFixture(delay: .zero)
        let plain = URL(string: "test://options/serialized.timg")!
        f.serve(plain.absoluteString)
        let marker = Data("serialized".utf8)
        let context = ImageContext().with(.cacheSerializer, ImageCacheSerializer { _, _, _ in marker })
        _ = try await f.manager.loadImage(with: plain, options: [.waitStoreCache], context: context)
        #expect(f.cache.diskData(plain.absoluteString) == marker)

        let other = URL(string: "test://options/settings.timg")!
        f.serve(other.absoluteString)
        f.manager.settings.cacheSerializer = ImageCacheSerializer { _, _, _ in marker + marker }
        _ = try await f.manager.loadImage(with: other, options: [.waitStoreCache])
        #expect(f.cache.diskData(other.absoluteString) == marker + marker)
    }

    @Test("originalQueryCacheType decides where the original is looked for when the transformed key misses")
    func originalQueryCacheType() async throws {
        let f = ManagerFixture(delay: .zero)
        let source = URL(string: "test://options/original.timg")!
        f.serve(source.absoluteString, width: 30, height: 30)
        // The original in memory only.
        await f.cache.store(
            Image(try PixelBuffer(width: 30, height: 30, format: .rgba8, fill: .white)), data: nil,
            key: source.absoluteString, options: [], context: ImageContext(), cacheType: .memory)
        var context = ImageContext().with(.imageTransformer, CountingInvertTransformer(tag: "orig"))
        context[.storeCacheType] = ImageCacheType.none
        context[.originalStoreCacheType] = ImageCacheType.none
        context[.originalQueryCacheType] = .memory
        let fromMemory = try await f.manager.loadImage(with: source, context: context)
        #expect(fromMemory.cacheType == .memory)
        #expect(f.loader.requests(source.absoluteString) == 0)

        context[.originalQueryCacheType] = ImageCacheType.none
        let loaded = try await f.manager.loadImage(with: source, context: context)
        #expect(loaded.cacheType == .none)
        #expect(f.loader.requests(source.absoluteString) == 1)

        context[.originalQueryCacheType] = nil
        let byDefault = try await f.manager.loadImage(with: source, context: context)
        #expect(byDefault.cacheType == .none, "the default looks on disk only")
        #expect(f.loader.requests(source.absoluteString) == 2)
    }
}
