import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("A URL no loader takes fails with a typed error")
struct ImageManagerNoLoaderTests {
    let foreign = URL(string: "file:///tmp/forgot-the-file-loader.png")!

    @Test("loadImage throws invalidURL naming the URL, makes no request and does not block the URL")
    func asyncFormThrows() async throws {
        let f = ManagerFixture()
        let error = await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: foreign) }
        #expect(error == .invalidURL(foreign.absoluteString))
        #expect(error?.description.contains(foreign.absoluteString) == true)
        #expect(f.loader.totalRequests == 0)
        #expect(!f.manager.blockedURLs.contains(foreign), "registering the loader later must make the URL load")
    }

    @Test("The callback form reports the same failure, not a success without image")
    func callbackFormFails() async throws {
        let f = ManagerFixture()
        let outcome = await withCheckedContinuation { continuation in
            f.manager.loadImage(with: foreign) { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error == .invalidURL(foreign.absoluteString))
    }

    @Test("A cache-only miss still answers no image and no error, as SDWebImage")
    func cacheOnlyMissIsNotAnError() async throws {
        let f = ManagerFixture()
        let result = try await f.manager.loadImage(with: foreign, options: [.fromCacheOnly])
        #expect(result.image == nil)
    }

    @Test("A URL no loader takes is still answered from the cache")
    func cachedImageStillAnswers() async throws {
        let f = ManagerFixture()
        f.cache.putOnDisk(TestCoder.sample(width: 9, height: 9), key: foreign.absoluteString)
        let result = try await f.manager.loadImage(with: foreign)
        #expect(result.image?.pixelSize.width == 9)
    }

    @Test("image(with:) returns the image itself, and throws notCached for a cache-only miss")
    func imageConvenience() async throws {
        let f = ManagerFixture(delay: .zero)
        let url = URL(string: "test://img/convenience.timg")!
        f.serve(url.absoluteString, width: 12, height: 6)
        let image: Image = try await f.manager.image(with: url)
        #expect(image.pixelSize == ImageSize(width: 12, height: 6))

        let missing = URL(string: "test://img/not-cached.timg")!
        let error = await #expect(throws: ImagePipeError.self) {
            try await f.manager.image(with: missing, options: [.fromCacheOnly])
        }
        guard case .loadFailed(let failure, _, let message)? = error else {
            Issue.record("expected loadFailed(.notCached), got \(String(describing: error))")
            return
        }
        #expect(failure == .notCached)
        #expect(message.contains(missing.absoluteString))
        await #expect(throws: ImagePipeError.invalidURL(foreign.absoluteString)) { try await f.manager.image(with: foreign) }
    }
}
