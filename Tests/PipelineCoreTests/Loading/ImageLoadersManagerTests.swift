import Foundation
import ImagePipe
import TestSupport
import Testing

@testable import PipelineCore

@Suite("Loaders manager")
struct ImageLoadersManagerTests {
    @Test("The loader added last that can load the URL loads it")
    func priority() async throws {
        let older = TestLoader.named("older", scheme: "test")
        let newer = TestLoader.named("newer", scheme: "test")
        let other = TestLoader.named("other", scheme: "other")
        let manager = ImageLoadersManager()
        manager.add(older)
        manager.add(newer)
        manager.add(other)
        let result = try await manager.load(URL(string: "test://a")!, options: [], context: ImageContext(), progress: nil)
        #expect(String(decoding: result.data, as: UTF8.self) == "newer")
        #expect(older.totalRequests == 0)
        let viaOther = try await manager.load(URL(string: "other://a")!, options: [], context: ImageContext(), progress: nil)
        #expect(String(decoding: viaOther.data, as: UTF8.self) == "other")
    }

    @Test("A URL no loader takes fails with invalidURL")
    func noLoader() async {
        let manager = ImageLoadersManager(loaders: [TestLoader.named("t", scheme: "test")])
        #expect(!manager.canLoad(URL(string: "ftp://x")!, options: [], context: ImageContext()))
        await #expect(throws: ImagePipeError.invalidURL("ftp://x")) {
            try await manager.load(URL(string: "ftp://x")!, options: [], context: ImageContext(), progress: nil)
        }
    }

    @Test("Only permanent failures block a URL by default; cancellation and transient ones never do")
    func blocking() {
        let manager = ImageLoadersManager(loaders: [TestLoader.named("t", scheme: "test")])
        let url = URL(string: "test://a")!
        func blocks(_ error: ImagePipeError) -> Bool {
            manager.shouldBlockURL(url, error: error, options: [], context: ImageContext())
        }
        #expect(blocks(.badImageData(reason: "x")))
        #expect(blocks(.invalidURL("x")))
        #expect(!blocks(.cancelled))
        #expect(!blocks(.stubTransport(kind: .stubTimedOut, message: "t")))
        #expect(!blocks(.stubBadStatus(404)), "SDWebImage does not block 404s either")
    }

    @Test("Loaders can be added while loads run")
    func concurrentMutation() async throws {
        let manager = ImageLoadersManager(loaders: [TestLoader.named("base", scheme: "test")])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 {
                        _ = try await manager.load(URL(string: "test://a")!, options: [], context: ImageContext(), progress: nil)
                    }
                }
            }
            group.addTask {
                for i in 0..<200 { manager.add(TestLoader.named("\(i)", scheme: "s\(i)")) }
            }
            try await group.waitForAll()
        }
        #expect(manager.loaders.count == 201)
    }

    @Test("Load progress is the fraction of a known total, nil while the total is unknown")
    func loadProgressFraction() {
        #expect(ImageLoadProgress(receivedBytes: 5, expectedBytes: 10).fraction == 0.5)
        #expect(ImageLoadProgress(receivedBytes: 5, expectedBytes: nil).fraction == nil)
    }
}
