import Foundation
import Testing

@testable import ImageServer

@Suite("Source policy: allowed prefixes and local sources")
struct SourcePolicyTests {
    let policy = SourcePolicy(
        allowedPrefixes: [SourcePrefix("http://example.com")!, SourcePrefix("https://cdn.example.org/images/")!],
        localRoot: "/srv/images")

    @Test(
        "sources under an allowed prefix are fetched",
        arguments: [
            "http://example.com/a.jpg", "http://EXAMPLE.com:80/dir/a.jpg", "http://example.com",
            "https://cdn.example.org/images/cat.png",
        ])
    func allowed(source: String) throws {
        #expect(try policy.resolve(source).absoluteString == source)
    }

    @Test(
        "a prefix is compared by host, not as text: imgproxy's example.com@evil.com lesson",
        arguments: [
            "http://example.com@evil.com/a.jpg", "http://example.com:80@evil.com/a.jpg", "http://example.com.evil.com/a.jpg",
            "https://example.com/a.jpg", "http://example.com:8080/a.jpg", "https://cdn.example.org/imagesx/a.png",
            "https://cdn.example.org/images/../private/a.png", "https://cdn.example.org/images/%2e%2e/private/a.png",
            "https://cdn.example.org/other.png",
            // Dot segments that Tomcat (`..;x`) and IIS (`..\`, `..%5c`) fold after the check.
            "https://cdn.example.org/images/..;/private/a.png", "https://cdn.example.org/images/..;jsessionid=1/private/a.png",
            "https://cdn.example.org/images/..%5cprivate/a.png", "https://cdn.example.org/images/..%5C..%5Cprivate/a.png",
            "https://cdn.example.org/images/%2e%2e;/private/a.png",
        ])
    func refused(source: String) {
        #expect(throws: SourcePolicy.Refusal.notAllowed("the source is not in the allowed sources")) { try policy.resolve(source) }
    }

    @Test("local:///path reads under the local root only, and only when one is set")
    func localSources() throws {
        #expect(try policy.resolve("local:///cats/a.png").path == "/srv/images/cats/a.png")
        #expect(throws: SourcePolicy.Refusal.malformed("a local source is local:///path")) { try policy.resolve("local:///cats/../../etc/passwd") }
        #expect(throws: SourcePolicy.Refusal.malformed("a local source is local:///path")) { try policy.resolve("local://host/a.png") }
        let noRoot = SourcePolicy(allowedPrefixes: [], localRoot: nil)
        #expect(throws: SourcePolicy.Refusal.notAllowed("local sources are not enabled")) { try noRoot.resolve("local:///a.png") }
    }

    @Test("without prefixes any http(s) source passes this check; other schemes never do")
    func schemes() throws {
        let open = SourcePolicy(allowedPrefixes: [], localRoot: nil)
        #expect(try open.resolve("https://anything.example/a.png").host == "anything.example")
        #expect(throws: SourcePolicy.Refusal.malformed("unsupported source scheme 'file'")) { try open.resolve("file:///etc/passwd") }
        #expect(throws: SourcePolicy.Refusal.malformed("unsupported source scheme 'gopher'")) { try open.resolve("gopher://h/a") }
        #expect(throws: SourcePolicy.Refusal.malformed("the source URL has no host")) { try open.resolve("http:///a.png") }
        #expect(throws: SourcePolicy.Refusal.malformed("the source is not a URL")) { try open.resolve("no scheme here") }
    }

    @Test("a prefix must be an http(s) URL with a host and no credentials")
    func prefixParsing() {
        #expect(SourcePrefix("example.com") == nil)
        #expect(SourcePrefix("ftp://example.com/") == nil)
        #expect(SourcePrefix("http://user:pw@example.com/") == nil)
        #expect(SourcePrefix("http://example.com/a/../b") == nil)
        #expect(SourcePrefix("https://example.com/images/") != nil)
    }
}

@Suite("Source prefixes with wildcards, as imgproxy's IMGPROXY_ALLOWED_SOURCES")
struct SourcePrefixWildcardTests {
    @Test(
        "a * in the host or the path is any run of characters but /, matched within that part",
        arguments: [
            ("http://*.mycdn.dev/", "http://a-1.b-2.mycdn.dev/x.jpg", true),
            ("http://*.mycdn.dev/", "http://other.dev/.mycdn.dev/x.jpg", false),
            ("http://*.mycdn.dev/", "http://evil.com?.mycdn.dev/x.jpg", false),
            ("http://*.mycdn.dev/", "http://mycdn.dev.evil.com/x.jpg", false),
            ("https://img*.example.com/", "https://img7.example.com/a.png", true),
            ("https://cdn.example.com/*/public/", "https://cdn.example.com/shop/public/a.png", true),
            ("https://cdn.example.com/*/public/", "https://cdn.example.com/a/b/public/a.png", false),
            ("https://cdn.example.com/*/public/", "https://cdn.example.com/shop/private/a.png", false),
            ("https://cdn.example.com/*.png", "https://cdn.example.com/cat.png", true),
        ] as [(String, String, Bool)])
    func wildcard(prefix: String, source: String, allowed: Bool) throws {
        let pattern = try #require(SourcePrefix(prefix))
        #expect(SourcePolicy.isAllowed(try #require(URL(string: source)), by: [pattern]) == allowed, "\(prefix) \(source)")
    }
}
