import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import ImageServer

/// What strangers' URLs can make the server keep: nothing past `maxURLLength`, and within it no
/// more than `memoryLimit` charges, keys included.
@Suite("Memory held for strangers' URLs")
struct MemoryBoundTests {
    @Test("A URL over --max-url-length is 414 before anything is fetched or stored; /health still answers")
    func longURL() async throws {
        let fixture = try ServerFixture()
        let server = fixture.makeServer()
        let long = fixture.url("w:8", "/photo.png?" + String(repeating: "a", count: 9000), ext: "png")
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: long, method: .get) { response in
                #expect(response.status.code == 414)
                #expect(String(buffer: response.body) == "the URL is longer than the server takes (8192 bytes)\n")
            }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
        #expect(fixture.origin.requestCount("/photo.png") == 0)
        #expect(server.handler.renderer.loader.validators.totalCount == 0)
        #expect(server.handler.renderer.memoryOutputs?.totalCount == 0)
    }

    @Test("Unique URLs with long query strings keep the results and source validators within --memory-limit, keys counted")
    func uniqueLongURLs() async throws {
        let limit = 100_000
        let fixture = try ServerFixture().with { $0.memoryLimit = limit }
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            for index in 0..<60 {
                let source = "/photo.png?\(index)-" + String(repeating: "q", count: 6000)
                try await client.execute(uri: fixture.url("w:4", source, ext: "png"), method: .get) { #expect($0.status == .ok) }
            }
        }
        let renderer = server.handler.renderer
        let validators = renderer.loader.validators
        #expect(validators.totalCost <= MemoryCharge.validatorLimit(memoryLimit: limit))
        #expect(validators.totalCount < 60, "the table keeps what fits, not every source")
        #expect((renderer.memoryOutputs?.totalCost ?? 0) <= limit)
        #expect((renderer.memoryOutputs?.totalCount ?? 0) < 60)
    }

    @Test("With no memory for results (--no-cache), no source validator is kept either")
    func noMemoryKeepsNothing() async throws {
        let fixture = try ServerFixture().with { $0.memoryLimit = 0 }
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            for index in 0..<5 {
                try await client.execute(uri: fixture.url("w:4", "/photo.png?\(index)", ext: "png"), method: .get) { #expect($0.status == .ok) }
            }
        }
        #expect(server.handler.renderer.loader.validators.totalCount == 0)
    }
}
