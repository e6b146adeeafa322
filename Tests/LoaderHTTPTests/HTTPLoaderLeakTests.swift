import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import LoaderHTTP

@Suite("HTTPLoader: nothing leaks")
struct HTTPLoaderLeakTests {
    @Test("after successes, faults and cancellations: no download left, no socket and no easy handle once invalidated")
    func noLeaks() async throws {
        let server = try FaultRoutes.server()
        var config = FaultRoutes.trickleConfiguration()
        config.maxResponseBytes = 1 << 20
        let loader = HTTPLoader(configuration: config)
        let paths = ["/image.png", "/reset", "/short-body", "/endless", "/404", "/500", "/trickle", "/gzip", "/loop", "/to-file"]
        await withTaskGroup(of: Void.self) { group in
            for path in paths + paths.map({ $0 + "?again" }) {
                group.addTask { _ = await loadError(loader, server.url(path)) }
            }
            // Cancelled mid-transfer as well.
            group.addTask {
                let task = Task { try await loader.loadTyped(server.url("/trickle?cancel")) }
                try? await Task.sleep(for: .milliseconds(200))
                task.cancel()
                _ = try? await task.value
            }
        }
        #expect(loader.currentDownloadCount == 0)
        #expect(loader.waitingCallerCount == 0)
        #expect(loader.liveEasyHandleCount <= config.maxConcurrentDownloads)
        loader.invalidate()
        #expect(loader.liveEasyHandleCount == 0)
        // An invalidated loader refuses new work instead of touching freed libcurl handles.
        #expect(await loadError(loader, server.url("/image.png")) == .cancelled)
        loader.maxConcurrentDownloads = 3
        server.stop()
        #expect(await eventually { TestProcesses.openTCPSockets(port: server.port) == 0 })
        #expect(await eventually { server.openConnectionCount == 0 })
    }
}
