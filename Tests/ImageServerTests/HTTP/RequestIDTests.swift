import Hummingbird
import HummingbirdTesting
import Testing

@testable import ImageServer

@Suite("Request ids and the routes' answers")
struct RequestIDTests {
    @Test("a well-formed X-Request-ID comes back as sent; a missing or malformed one is replaced by a new id")
    func requestID() async throws {
        let fixture = try ServerFixture()
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/health", method: .get, headers: [.xRequestID: "edge-42.a:b_c"]) { response in
                #expect(response.headers[.xRequestID] == "edge-42.a:b_c")
            }
            for header: HTTPFields in [[:], [.xRequestID: "bad id\u{1}"], [.xRequestID: String(repeating: "a", count: 129)]] {
                try await client.execute(uri: "/health", method: .get, headers: header) { response in
                    let id = try #require(response.headers[.xRequestID])
                    #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
                }
            }
            // Refusals carry it too.
            try await client.execute(uri: "/health", method: .post, headers: [.xRequestID: "r1"]) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD, OPTIONS")
                #expect(response.headers[.xRequestID] == "r1")
            }
        }
    }

    @Test("HEAD and OPTIONS answer 200 on any path without any work, as imgproxy answers them")
    func headAndOptions() async throws {
        let fixture = try ServerFixture()
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            for method: HTTPRequest.Method in [.head, .options] {
                for uri in [fixture.url("w:8", "/photo.png", ext: "png"), "/insecure/w:8/aGVsbG8", "/health", "/"] {
                    try await client.execute(uri: uri, method: method, headers: [.xRequestID: "h1"]) { response in
                        #expect(response.status == .ok, "\(method) \(uri)")
                        #expect(response.body.readableBytes == 0)
                        #expect(response.headers[.xRequestID] == "h1")
                    }
                }
            }
        }
        #expect(fixture.origin.requestCount("/photo.png") == 0, "nothing was fetched")
    }

    @Test("RequestID takes 1–128 letters, digits and -_.: only")
    func wellFormed() {
        #expect(RequestID.isWellFormed("a"))
        #expect(RequestID.isWellFormed("0af7651916cd43dd8448eb211c80319c"))
        #expect(!RequestID.isWellFormed(""))
        #expect(!RequestID.isWellFormed("a b"))
        #expect(!RequestID.isWellFormed("é"))
        #expect(RequestID.make() != RequestID.make())
    }
}
