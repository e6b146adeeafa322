import Foundation
import Logging
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("What the manager logs")
struct ImageManagerLoggingTests {
    let url = URL(string: "test://img/photo.timg")!
    let log = LogCapture()

    func fixture() -> ManagerFixture {
        let f = ManagerFixture(delay: .zero)
        f.manager.settings.logger = log.logger
        return f
    }

    @Test("A failed load is a debug line with the URL, the cache key and the error's kind; blocking the URL is a notice")
    func failedLoad() async throws {
        let f = fixture()
        f.loader.answer(url.absoluteString, with: .error(.stubBadStatus(404)))
        await #expect(throws: ImagePipeError.self) { try await f.manager.loadImage(with: url) }
        let failure = try #require(log.entries.first { $0.level == .debug && $0.message.contains("failed") })
        #expect(failure.metadata["image.url"] == .string(url.absoluteString))
        #expect(failure.metadata["cache.key"] == .string(f.manager.cacheKey(for: url)))
        #expect(failure.metadata["error.kind"] == .string("loadFailed.httpStatus"))
        #expect(failure.message.contains("HTTP 404"))
        let blocked = try #require(log.entries.first { $0.level == .notice })
        #expect(blocked.message.contains("blocked") && blocked.metadata["image.url"] == .string(url.absoluteString))
    }

    @Test("A transformer that fails is a warning naming it, and the image goes on untransformed")
    func failedTransformer() async throws {
        let f = fixture()
        f.serve(url.absoluteString)
        let transformer = CountingInvertTransformer(fails: true)
        let result = try await f.manager.loadImage(with: url, context: ImageContext().with(.imageTransformer, transformer))
        #expect(result.image != nil)
        let warning = try #require(log.entries.first { $0.level == .warning })
        #expect(warning.metadata["transformer.key"] == .string(transformer.key))
        #expect(warning.metadata["image.url"] == .string(url.absoluteString))
        #expect(warning.message.contains("untransformed"))
    }

    @Test("A cancelled load logs nothing, and a manager logs nothing unless given a logger")
    func quiet() async throws {
        let f = ManagerFixture(delay: .seconds(30))
        f.manager.settings.logger = log.logger
        f.serve(url.absoluteString)
        let task = f.manager.imageTask(with: url)
        task.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await task.result() }
        try #require(await eventually { !f.manager.isRunning })
        #expect(log.entries.isEmpty)
        #expect(ImageManager.Settings().logger.handler is SwiftLogNoOpLogHandler)
    }
}
