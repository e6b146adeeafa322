import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// Context keys whose effect shows only in the keys, the caches or the loader a request reaches.
@Suite("Image manager context keys")
struct ImageManagerContextKeyTests {
    let url = URL(string: "test://keys/photo.timg?signature=abc")!

    @Test("The context's cacheKeyFilter decides the cache key; preserveAspectRatio is part of a thumbnail's key")
    func keyShapingKeys() {
        let f = ManagerFixture(delay: .zero)
        let filtered = ImageContext().with(.cacheKeyFilter, ImageCacheKeyFilter.removingQuery)
        #expect(f.manager.cacheKey(for: url, context: filtered) == "test://keys/photo.timg")
        let thumbnail = ImageContext().with(.thumbnailPixelSize, ImageSize(width: 16, height: 16))
        #expect(
            f.manager.cacheKey(for: url, context: thumbnail.with(.preserveAspectRatio, false))
                != f.manager.cacheKey(for: url, context: thumbnail.with(.preserveAspectRatio, true)))
    }

    @Test("originalImageCache receives the original of a transformed load; the request's cache only the result")
    func originalImageCache() async throws {
        let f = ManagerFixture(delay: .zero)
        f.serve(url.absoluteString)
        let originals = InMemoryImageCache(coders: f.coders)
        let context = ImageContext()
            .with(.imageTransformer, CountingInvertTransformer(tag: "orig"))
            .with(.originalImageCache, originals)
        let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(result.image != nil)
        #expect(originals.keys == [url.absoluteString])
        #expect(!f.cache.keys.contains(url.absoluteString))
    }

    @Test("refreshCached hands the cached image to the loader as loaderCachedImage")
    func loaderCachedImage() async throws {
        let f = ManagerFixture(delay: .zero)
        f.serve(url.absoluteString)
        _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
        _ = try await f.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache])
        let contexts = f.loader.contexts
        #expect(contexts.count == 2)
        #expect(contexts.first?[.loaderCachedImage] == nil)
        #expect(contexts.last?[.loaderCachedImage] != nil)
    }
}
