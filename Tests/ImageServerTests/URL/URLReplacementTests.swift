import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ImageServer

/// imgproxy's `IMGPROXY_URL_REPLACEMENTS`: prefix patterns with `*` for a run without `/`, and
/// Go's `${N}` expansion in the replacement.
@Suite("URL replacements")
struct URLReplacementTests {
    @Test(
        "a source starting with the pattern has that start replaced; others stay as they are",
        arguments: [
            ("mys3://*/=https://${1}.s3.example.com/", "mys3://bucket/a/b.jpg", "https://bucket.s3.example.com/a/b.jpg"),
            ("mys3://*/=https://${1}.s3.example.com/", "mys3://a/b/c.jpg", "https://a.s3.example.com/b/c.jpg"),
            ("mys3://*/=https://${1}.s3.example.com/", "https://mys3://x/", "https://mys3://x/"),
            ("local://=https://origin.example/", "local:///a.png", "https://origin.example//a.png"),
            ("http://*.*/=https://$2/$1/", "http://a.b.c/x.png", "https://c/a.b/x.png"),
            ("img:*=https://o.example/${1}.png", "img:cat", "https://o.example/cat.png"),
            ("img:*=https://o.example/${1}.png", "img:a/b", "https://o.example/a.png/b"),
            ("a:*=$$${1}", "a:x", "$x"),
            ("a:*=[$1x][${2}][${0}][$/]", "a:q", "[][][a:q][$/]"),
        ])
    func rewrites(definition: String, source: String, expected: String) throws {
        let replacement = try #require(URLReplacement(definition))
        #expect(replacement.apply(to: source) == expected)
    }

    @Test("definitions split at the first =; an empty pattern or no = is refused")
    func definitions() {
        #expect(URLReplacement("a=b=c") == URLReplacement(pattern: "a", replacement: "b=c"))
        #expect(URLReplacement("a=") == URLReplacement(pattern: "a", replacement: ""))
        #expect(URLReplacement("=b") == nil)
        #expect(URLReplacement("ab") == nil)
    }

    @Test("replacements apply in turn, then the base URL, as imgproxy orders them")
    func order() {
        let replacements = [URLReplacement(pattern: "a:", replacement: "b:"), URLReplacement(pattern: "b:*", replacement: "${1}.png")]
        #expect(ProcessingURL.rewritten("a:cat", replacements: replacements, baseURL: "https://o.example/") == "https://o.example/cat.png")
        #expect(ProcessingURL.rewritten("https://o.example/x", replacements: replacements, baseURL: "https://o.example/") == "https://o.example/x")
    }

    @Test("through the server: the rewritten source is fetched, and the allow-list judges it, not the URL's")
    func throughServer() async throws {
        let base = try ImgproxyOptionsTests.fixture()
        let origin = base.origin.baseURL
        let fixture = base.with {
            $0.urlReplacements = [URLReplacement(pattern: "img:*", replacement: "\(origin)/${1}.png"), URLReplacement(pattern: "elsewhere:", replacement: "http://other.example/")]
            $0.allowedSources = [SourcePrefix(origin + "/")!]
        }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/img:geometry"), method: .get) { response in
                #expect(response.status == .ok)
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size.width == 10)
            }
            let encoded = Data("img:geometry".utf8).base64URLEncodedWithoutPadding
            try await client.execute(uri: ServerFixture.signed("/w:10/\(encoded).png"), method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/elsewhere:a.png"), method: .get) {
                #expect($0.status == .notFound, "rewritten outside --allow-source: imgproxy's 404")
            }
        }
        #expect(base.origin.requestCount("/geometry.png") >= 1)
    }
}
