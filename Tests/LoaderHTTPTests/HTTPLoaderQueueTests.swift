import Foundation
import ImagePipe
import LoaderHTTP
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

@Suite("HTTPLoader: queue order, priority and concurrency")
struct HTTPLoaderQueueTests {
    /// Downloads here wait at the server's gate while the test queues others, however slowly a
    /// loaded machine runs it: no low-speed or total timeout may end them first.
    private static func heldConfiguration() -> HTTPLoaderConfiguration {
        var config = FaultRoutes.testConfiguration()
        config.timeout = 600
        config.lowSpeedTime = 600
        return config
    }

    /// With one download at a time: starts /q0 (held at the server), queues /q1…/q5 in order with
    /// the given options each, then releases and returns the order the server saw.
    private func serverOrder(order: HTTPExecutionOrder, options: [ImageOptions], context: ImageContext = ImageContext()) async throws -> [String] {
        let gate = Gate()
        let server = try TestHTTPServer()
        defer { server.stop() }
        for index in 0...5 {
            server.route("/q\(index)") { _, c in
                gate.pass("q\(index)")
                c.respond(status: 200, headers: ["Content-Type": "image/png"], body: FaultRoutes.image)
            }
        }
        var config = Self.heldConfiguration()
        config.maxConcurrentDownloads = 1
        config.executionOrder = order
        let loader = HTTPLoader(configuration: config)
        var tasks = [Task { try await loader.loadTyped(server.url("/q0")) }]
        #expect(await eventually { server.requestCount("/q0") == 1 })
        for index in 1...5 {
            let option = options[index - 1]
            tasks.append(Task { try await loader.loadTyped(server.url("/q\(index)"), options: option, context: context) })
            #expect(await eventually { loader.currentDownloadCount == index + 1 })
        }
        gate.open()
        for task in tasks { _ = try await task.value }
        return gate.arrivals
    }

    @Test("FIFO starts queued downloads oldest first")
    func fifo() async throws {
        #expect(try await serverOrder(order: .fifo, options: Array(repeating: [], count: 5)) == ["q0", "q1", "q2", "q3", "q4", "q5"])
    }

    @Test("LIFO starts queued downloads newest first")
    func lifo() async throws {
        #expect(try await serverOrder(order: .lifo, options: Array(repeating: [], count: 5)) == ["q0", "q5", "q4", "q3", "q2", "q1"])
    }

    @Test("the request's executionOrder context value overrides the configuration's order")
    func executionOrderFromContext() async throws {
        var context = ImageContext()
        context[.executionOrder] = .lifo
        #expect(try await serverOrder(order: .fifo, options: Array(repeating: [], count: 5), context: context) == ["q0", "q5", "q4", "q3", "q2", "q1"])
    }

    @Test("high priority jumps the queue, low priority goes last")
    func priority() async throws {
        let order = try await serverOrder(order: .fifo, options: [.lowPriority, [], [], .highPriority, []])
        #expect(order == ["q0", "q4", "q2", "q3", "q5", "q1"])
    }

    @Test("max concurrent downloads is honoured and can be raised while downloads wait")
    func concurrencyChange() async throws {
        let gate = Gate()
        let server = try TestHTTPServer()
        defer { server.stop() }
        for index in 0..<8 {
            server.route("/c\(index)") { _, c in
                gate.pass("c\(index)", hold: 0.05)
                c.respond(status: 200, headers: ["Content-Type": "image/png"], body: FaultRoutes.image)
            }
        }
        var config = Self.heldConfiguration()
        config.maxConcurrentDownloads = 2
        let loader = HTTPLoader(configuration: config)
        #expect(loader.maxConcurrentDownloads == 2)
        let tasks = (0..<8).map { index in Task { try await loader.loadTyped(server.url("/c\(index)")) } }
        #expect(await eventually { gate.inFlight.load(ordering: .relaxed) == 2 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(gate.inFlight.load(ordering: .relaxed) == 2)
        loader.maxConcurrentDownloads = 6
        #expect(await eventually { gate.inFlight.load(ordering: .relaxed) == 6 })
        gate.open()
        for task in tasks { _ = try await task.value }
        #expect(gate.maxInFlight.load(ordering: .relaxed) == 6)
        #expect(loader.currentDownloadCount == 0)
    }
}
