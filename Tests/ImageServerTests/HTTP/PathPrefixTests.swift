import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ImageServer

/// `--path-prefix` (imgproxy's `IMGPROXY_PATH_PREFIX`): every route under it, signatures over the
/// path after it, nothing answered outside it.
@Suite("Path prefix")
struct PathPrefixTests {
    @Test("images, /info and /health live under the prefix; the signature covers the path after it")
    func routesUnderPrefix() async throws {
        let fixture = try ImgproxyOptionsTests.fixture { $0.pathPrefix = "/img/" }
        let path = "/w:10/plain/\(fixture.origin.baseURL)/geometry.png"
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: "/img" + ServerFixture.signed(path), method: .get) { response in
                #expect(response.status == .ok)
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size.width == 10)
            }
            try await client.execute(uri: "/img/info" + ServerFixture.signed(path), method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/img/health", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/img/metrics", method: .get) { #expect($0.status == .notFound) }
            let signedWithPrefix = "/" + ServerFixture.key.signature(for: "/img" + path) + path
            try await client.execute(uri: "/img" + signedWithPrefix, method: .get) { #expect($0.status == .forbidden, "the prefix is not signed") }
        }
    }

    @Test("outside the prefix every route answers 404, HEAD and OPTIONS too")
    func outsidePrefix() async throws {
        let fixture = try ImgproxyOptionsTests.fixture { $0.pathPrefix = "/img" }
        let url = fixture.url("w:10", "/geometry.png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for uri in [url, "/health", "/imgx" + url, "/imgx/health", "/"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
            try await client.execute(uri: url, method: .head) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/img" + url, method: .head) { #expect($0.status == .ok) }
            try await client.execute(uri: "/img" + url, method: .options) { #expect($0.status == .ok) }
            try await client.execute(uri: "/purge", method: .post) { #expect($0.status == .methodNotAllowed) }
            try await client.execute(uri: "/img/purge", method: .post) { #expect($0.status == .notFound, "no --admin-secret: 404, as without a prefix") }
        }
    }

    @Test("the prefix is taken off paths; the access log writes the signature after it as *")
    func stripping() {
        let prefix = PathPrefix("/img")
        #expect(prefix.strip("/img/sig/x") == "/sig/x")
        #expect(prefix.strip("/img") == "/")
        #expect(prefix.strip("/imgx/sig") == nil)
        #expect(prefix.strip("/other") == nil)
        #expect(PathPrefix("/").strip("/a") == "/a")
        #expect(AccessLog.redacted("/img/SIGNATURE/w:1/aGVsbG8", prefix: prefix) == "/img/*/w:1/aGVsbG8")
        #expect(AccessLog.redacted("/img/info/SIGNATURE/w:1/aGVsbG8", prefix: prefix) == "/img/info/*/w:1/aGVsbG8")
        #expect(AccessLog.redacted("/SIGNATURE/w:1/aGVsbG8", prefix: prefix) == "/*/w:1/aGVsbG8", "outside the prefix: still no signature in the log")
        #expect(PathPrefix.problem(with: "img") != nil && PathPrefix.problem(with: "/a b") != nil && PathPrefix.problem(with: "/a?b") != nil)
        #expect(PathPrefix.problem(with: "/cdn/img") == nil)
    }
}
