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
                #expect(response.headers[.allow] == "GET, HEAD")
                #expect(response.headers[.xRequestID] == "r1")
            }
        }
    }

    @Test("HEAD answers GET's headers without the body, for images and for errors")
    func head() async throws {
        let fixture = try ServerFixture()
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            let url = fixture.url("w:8", "/photo.png", ext: "png")
            let length = try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok)
                return response.body.readableBytes
            }
            try await client.execute(uri: url, method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(length))
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/insecure/w:8/aGVsbG8", method: .head) { response in
                #expect(response.status == .forbidden)
                #expect(response.body.readableBytes == 0)
            }
        }
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
