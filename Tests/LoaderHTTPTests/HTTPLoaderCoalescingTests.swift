import Foundation
import PipelineConformance
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import LoaderHTTP
@testable import PipelineCore

@Suite("HTTPLoader: coalescing")
struct HTTPLoaderCoalescingTests {
    private func gatedServer(_ gate: Gate) throws -> TestHTTPServer {
        let server = try FaultRoutes.server()
        server.route("/gated.png") { _, c in
            gate.pass("gated")
            c.respond(status: 200, headers: ["Content-Type": "image/png"], body: FaultRoutes.image)
        }
        return server
    }

    @Test("100 concurrent requests for one URL reach the server once and all complete with the bytes")
    func hundredConcurrent() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/gated.png")
        let progressCounts = Locked<[Int: Int]>([:])
        let results = await withTaskGroup(of: Data?.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try? await loader.loadTyped(url) { _ in progressCounts.withLock { $0[index, default: 0] += 1 } }.data
                }
            }
            #expect(await eventually { loader.waitingCallerCount == 100 })
            gate.open()
            return await group.reduce(into: [Data?]()) { $0.append($1) }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 == FaultRoutes.image })
        #expect(server.requestCount("/gated.png") == 1)
        // Every caller got its own progress.
        #expect(progressCounts.withLock { $0.count } == 100)
    }

    @Test("cancelling 99 of 100 callers completes those with cancelled at once; the last still completes")
    func cancelNinetyNine() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/gated.png")
        let survivor = Task { try await loader.loadTyped(url).data }
        var others: [Task<Data, any Error>] = []
        for _ in 0..<99 { others.append(Task { try await loader.loadTyped(url).data }) }
        #expect(await eventually { loader.waitingCallerCount == 100 })
        for task in others { task.cancel() }
        for task in others {
            do {
                _ = try await task.value
                Issue.record("a cancelled caller got data")
            } catch {
                #expect(error as? ImagePipeError == .cancelled)
            }
        }
        #expect(loader.waitingCallerCount == 1)
        gate.open()
        #expect(try await survivor.value == FaultRoutes.image)
        #expect(server.requestCount("/gated.png") == 1)
    }

    @Test("cancelling the last caller cancels the transfer; the next request starts a new one")
    func cancelLastThenRequestAgain() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/gated.png")
        let first = Task { try await loader.loadTyped(url).data }
        #expect(await eventually { server.requestCount("/gated.png") == 1 })
        first.cancel()
        #expect(await (try? first.value) == nil)
        #expect(await eventually { loader.currentDownloadCount == 0 })
        gate.open()
        #expect(try await loader.loadTyped(url).data == FaultRoutes.image)
        #expect(server.requestCount("/gated.png") == 2)
        // And after a finished transfer, another one again.
        #expect(try await loader.loadTyped(url).data == FaultRoutes.image)
        #expect(server.requestCount("/gated.png") == 3)
    }

    @Test("200 staggered requests for one URL never lose a completion")
    func twoHundredStaggered() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        server.route("/stagger.png") { _, c in
            usleep(20_000)
            c.respond(status: 200, headers: ["Content-Type": "image/png"], body: FaultRoutes.image)
        }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/stagger.png")
        let completed = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try? await Task.sleep(for: .microseconds(index * 500))
                    return (try? await loader.loadTyped(url).data) == FaultRoutes.image
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(completed == 200)
        let requests = server.requestCount("/stagger.png")
        #expect(requests >= 1 && requests < 200)
    }

    @Test("requests differing in request-affecting settings do not share a transfer")
    func differentSettingsDoNotShare() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/gated.png")
        let header = ImageContext().with(.requestModifier, .setting(headers: ["X-Variant": "b"]))
        async let a = loader.loadTyped(url)
        async let b = loader.loadTyped(url, context: header)
        async let c = loader.loadTyped(url, options: .handleCookies)
        #expect(await eventually { server.requestCount("/gated.png") == 3 })
        gate.open()
        let all = try await [a.data, b.data, c.data]
        #expect(all.allSatisfy { $0 == FaultRoutes.image })
    }

    @Test("a progressive and a plain request for one URL at once share one transfer; only the progressive caller gets partial bytes")
    func progressiveAndPlainShare() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = server.url("/gated.png")
        let partials = Locked<[String: Int]>([:])
        async let progressive = loader.loadTyped(url, options: .progressiveLoad) { event in
            if event.partialData != nil { partials.withLock { $0["progressive", default: 0] += 1 } }
        }
        async let plain = loader.loadTyped(url) { event in
            if event.partialData != nil { partials.withLock { $0["plain", default: 0] += 1 } }
        }
        #expect(await eventually { loader.waitingCallerCount == 2 })
        gate.open()
        #expect(try await [progressive.data, plain.data] == [FaultRoutes.image, FaultRoutes.image])
        #expect(server.requestCount("/gated.png") == 1)
        #expect(partials.withLock { $0["progressive"] ?? 0 } > 0)
        #expect(partials.withLock { $0["plain"] } == nil)
    }

    @Test("a progressive and a plain load of one URL through the manager make one origin request and one decode")
    func progressiveAndPlainThroughTheManager() async throws {
        let gate = Gate()
        let server = try gatedServer(gate)
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let manager = ImageManager(cache: ImageCachesManager(), loader: loader, coders: ImageCodersManager(coders: [OnePixelCoder()]))
        let url = server.url("/gated.png")
        let progressive = manager.imageTask(with: url, options: .progressiveLoad)
        let plain = manager.imageTask(with: url)
        // Both requests wait on one decode, which waits on the manager's one call to the loader.
        #expect(await eventually { manager.decodes.joinerCount == 2 && loader.waitingCallerCount == 1 })
        gate.open()
        #expect(try await progressive.result().image?.pixelSize == ImageSize(width: 1, height: 1))
        #expect(try await plain.result().image?.pixelSize == ImageSize(width: 1, height: 1))
        #expect(server.requestCount("/gated.png") == 1)
        #expect(manager.decodes.startedCount == 1)
    }
}
