import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import Testing

@testable import ImageServer

/// Requests admitted against `maxWorkingMemory`: together they never hold more than it, one that
/// fits waits for room, and one larger than all of it is a 503 before any pixel is decoded.
@Suite("Working memory admission")
struct WorkingMemoryTests {
    /// A 500×500 PNG enlarged to 1000×1000 WebP: 1 MP of output at 18 bytes a pixel, 19 MB.
    static let heavy = "rs:force:1000:1000/el:1"
    static var heavyOptions: ProcessingOptions {
        var options = ProcessingOptions()
        (options.resizingType, options.width, options.height, options.enlarge) = (.force, 1000, 1000, true)
        return options
    }

    @Test("Each coder states what its encoder holds; a format whose encoder states nothing counts the most any holds")
    func encoderFigures() {
        let coders = ImageServer.defaultCoders()
        #expect(coders.encoderWorkingBytes(pixels: 1_000, format: .webp) == 14_000)
        #expect(coders.encoderWorkingBytes(pixels: 1_000, format: .jpeg) == 2_000)
        #expect(coders.encoderWorkingBytes(pixels: 1_000, format: .avif) == 1_000 * ImageCodersManager.unmeasuredEncoderBytesPerPixel)
        #expect(coders.encoderWorkingBytes(pixels: .max / 2, format: .png) == .max)
    }

    @Test("Two requests that each fit but not together both answer, one after the other: the budget's peak stays within it")
    func requestsWaitForRoom() async throws {
        // A deadline no loaded machine reaches: the second request waits for the first's render.
        let fixture = try ServerFixture().with {
            $0.workers = 2
            $0.requestTimeout = .seconds(120)
        }
        fixture.origin.serveBytes("/large.png", ServerFixture.png(width: 500, height: 500), contentType: "image/png")
        let estimate = WorkingMemoryEstimate.bytes(
            decode: ImageDecodeEstimate(outputSize: ImageSize(width: 500, height: 500)),
            options: Self.heavyOptions, format: .webp, coders: ImageServer.defaultCoders())
        // Room for one and a half: the second waits for the first to give its estimate back.
        let budget = estimate * 3 / 2
        let server = fixture.with { $0.maxWorkingMemory = budget }.makeServer()
        try await server.makeApplication().test(.router) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<2 {
                    group.addTask {
                        try await client.execute(uri: fixture.url(Self.heavy, "/large.png?\(index)", ext: "webp"), method: .get) { Int($0.status.code) }
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        let workingMemory = server.handler.renderer.workingMemory
        #expect(workingMemory.peakReservedBytes > 0)
        #expect(workingMemory.peakReservedBytes <= budget)
        #expect(workingMemory.reservedBytes == 0)
    }

    @Test("A request whose estimate is over the whole budget is a 503 before it is decoded; smaller ones still answer")
    func tooLargeIs503() async throws {
        let fixture = try ServerFixture().with { $0.maxWorkingMemory = 4 << 20 }
        fixture.origin.serveBytes("/large.png", ServerFixture.png(width: 500, height: 500), contentType: "image/png")
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url(Self.heavy, "/large.png", ext: "webp"), method: .get) { response in
                #expect(response.status.code == 503)
                #expect(String(buffer: response.body) == "the server has not enough memory for this image; try again later\n")
            }
            try await client.execute(uri: fixture.url("rs:fit:32:32", "/large.png", ext: "png"), method: .get) { #expect($0.status == .ok) }
        }
        #expect(server.handler.renderer.workingMemory.reservedBytes == 0)
    }
}
