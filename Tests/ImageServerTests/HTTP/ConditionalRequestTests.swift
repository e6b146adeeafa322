import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineConformance
import Synchronization
import Testing

@testable import ImageServer

/// `If-None-Match` and `If-Modified-Since` answered 304 as imgproxy answers them with
/// `IMGPROXY_USE_ETAG` and `IMGPROXY_USE_LAST_MODIFIED` (both on by default, as in its v4), and
/// forwarded to the origin for `raw:1`.
@Suite("Conditional requests")
struct ConditionalRequestTests {
    static let lastModified = "Sun, 01 Nov 2026 10:00:00 GMT"

    /// An origin at `/tagged.png` with an ETag and a Last-Modified, answering 304 to either validator matching.
    static func fixture(_ change: (inout ImageServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        let fixture = try ServerFixture().with(change)
        _ = recording(fixture)
        return fixture
    }

    @Test("If-Modified-Since no earlier than the origin's Last-Modified is 304; an earlier one is 200")
    func ifModifiedSince() async throws {
        let fixture = try Self.fixture()
        let url = ServerFixture.signed("/w:10/plain/\(fixture.origin.baseURL)/tagged.png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let etag = try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.lastModified] == Self.lastModified)
                return try #require(response.headers[.eTag])
            }
            for since in [Self.lastModified, "Mon, 02 Nov 2026 10:00:00 GMT", "Monday, 02-Nov-26 10:00:00 GMT", "Mon Nov  2 10:00:00 2026"] {
                try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: since]) { response in
                    #expect(response.status == .notModified, "\(since)")
                    #expect(response.body.readableBytes == 0)
                    #expect(response.headers[.lastModified] == Self.lastModified)
                    #expect(response.headers[.eTag] == etag)
                }
            }
            for since in ["Sat, 31 Oct 2026 10:00:00 GMT", "yesterday", "Fri, 01 Jan 2100 00:00:00 GMT"] {
                try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: since]) { #expect($0.status == .ok, "\(since)") }
            }
            try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: Self.lastModified, .ifNoneMatch: "\"other\""]) {
                #expect($0.status == .ok, "If-None-Match decides when both are sent")
            }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: etag]) { #expect($0.status == .notModified) }
        }
        #expect(fixture.origin.requestCount("/tagged.png") == 1, "304s come from what the server knows of the source")
    }

    @Test("--etag-buster wraps every ETag, so an old one is a miss; --last-modified-buster raises an older Last-Modified")
    func busters() async throws {
        let buster = try #require(ISO8601DateFormatter().date(from: "2026-11-20T08:30:00Z"))
        let busted = try Self.fixture {
            $0.etagBuster = "v2"
            $0.lastModifiedBuster = buster
        }
        let bustedURL = ServerFixture.signed("/w:10/plain/\(busted.origin.baseURL)/tagged.png")
        try await busted.makeServer().makeApplication().test(.router) { client in
            let etag = try await client.execute(uri: bustedURL, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.lastModified] == "Fri, 20 Nov 2026 08:30:00 GMT")
                return try #require(response.headers[.eTag])
            }
            #expect(etag.hasPrefix("\"v2/") && etag.hasSuffix("\"") && etag.count > 6, "the buster goes in front of the ETag: \(etag)")
            let unbusted = "\"" + etag.dropFirst(4)
            try await client.execute(uri: bustedURL, method: .get, headers: [.ifNoneMatch: unbusted]) { #expect($0.status == .ok, "an ETag from before the buster") }
            try await client.execute(uri: bustedURL, method: .get, headers: [.ifNoneMatch: etag]) { #expect($0.status == .notModified) }
            try await client.execute(uri: bustedURL, method: .get, headers: [.ifModifiedSince: Self.lastModified]) {
                #expect($0.status == .ok, "the origin's date is older than the buster's")
            }
            try await client.execute(uri: bustedURL, method: .get, headers: [.ifModifiedSince: "Fri, 20 Nov 2026 08:30:00 GMT"]) {
                #expect($0.status == .notModified)
                #expect($0.headers[.eTag] == etag)
            }
        }
        let later = try Self.fixture { $0.lastModifiedBuster = Date(timeIntervalSince1970: 1_790_812_800) }  // 2026-10-01
        let laterURL = ServerFixture.signed("/w:10/plain/\(later.origin.baseURL)/tagged.png")
        try await later.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: laterURL, method: .get) { #expect($0.headers[.lastModified] == Self.lastModified, "a later origin date stays") }
        }
    }

    /// What each request to the origin carried.
    final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        func withLock<T: Sendable>(_ body: (inout [String]) -> T) -> T { lines.withLock { body(&$0) } }
    }

    /// The `If-None-Match` and `If-Modified-Since` each request to `/tagged.png` carried ("-" for none).
    static func recording(_ fixture: ServerFixture) -> Seen {
        let seen = Seen()
        let png = ServerFixture.png(width: 40, height: 20)
        fixture.origin.route("/tagged.png") { request, connection in
            let (match, since) = (request.headers["if-none-match"], request.headers["if-modified-since"])
            seen.withLock { $0.append("\(match ?? "-") \(since ?? "-")") }
            let validators = ["ETag": "\"v1\"", "Last-Modified": lastModified]
            if match == "\"v1\"" || (match == nil && since == lastModified) {
                connection.respond(status: 304, headers: validators)
            } else {
                connection.respond(status: 200, headers: validators.merging(["Content-Type": "image/png"]) { $1 }, body: png)
            }
        }
        return seen
    }

    @Test("a server without the result asks the origin with the client's validators and answers its 304 unrendered")
    func forwardedToOrigin() async throws {
        for buster in ["", "v2"] {
            let fixture = try ServerFixture().with { $0.etagBuster = buster }
            let seen = Self.recording(fixture)
            let url = ServerFixture.signed("/w:10/plain/\(fixture.origin.baseURL)/tagged.png")
            let wider = ServerFixture.signed("/w:12/plain/\(fixture.origin.baseURL)/tagged.png")
            let (etag, widerETag) = try await fixture.makeServer().makeApplication().test(.live) { client in
                let etag = try await client.execute(uri: url, method: .get) { try #require($0.headers[.eTag]) }
                return (etag, try await client.execute(uri: wider, method: .get) { try #require($0.headers[.eTag]) })
            }
            #expect(etag != widerETag, "each representation has its own ETag")
            seen.withLock { $0 = [] }
            // A new server holds no result: the origin decides.
            try await fixture.makeServer().makeApplication().test(.live) { client in
                try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: etag]) { response in
                    #expect(response.status == .notModified, "buster '\(buster)'")
                    #expect(response.headers[.eTag] == etag)
                    #expect(response.body.readableBytes == 0)
                }
                try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "W/" + etag]) { #expect($0.status == .notModified) }
                try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: Self.lastModified]) { #expect($0.status == .notModified) }
            }
            #expect(seen.withLock { $0 } == ["\"v1\" -", "\"v1\" -", "- \(Self.lastModified)"], "buster '\(buster)'")
            seen.withLock { $0 = [] }
            try await fixture.makeServer().makeApplication().test(.live) { client in
                try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: widerETag, .ifModifiedSince: Self.lastModified]) { response in
                    #expect(response.status == .ok, "another representation's ETag is not asked of the origin")
                    #expect(response.headers[.eTag] == etag)
                }
            }
            #expect(seen.withLock { $0 } == ["- -"], "nothing forwarded for an ETag of another representation")
        }
    }

    @Test("a result's ETag carries the origin's for this representation only, and never past a header's length")
    func resultETag() {
        let etag = ResultETag.make(validator: "etag:\"v1\"", key: "a")
        #expect(ResultETag.originETag(in: etag, key: "a") == "\"v1\"")
        #expect(ResultETag.originETag(in: etag, key: "b") == nil, "another representation's")
        #expect(ResultETag.originETag(in: ResultETag.make(validator: "sha256:x", key: "a"), key: "a") == nil)
        let long = ResultETag.make(validator: "etag:\"" + String(repeating: "x", count: 200) + "\"", key: "a")
        #expect(ImageRequestHandler.isHeaderSafe(long) && ResultETag.originETag(in: long, key: "a") == nil)
    }

    @Test("an ETag from before --etag-buster, or an If-Modified-Since before --last-modified-buster, is not asked of the origin")
    func bustedNotForwarded() async throws {
        let fixture = try ServerFixture()
        let seen = Self.recording(fixture)
        let url = ServerFixture.signed("/w:10/plain/\(fixture.origin.baseURL)/tagged.png")
        let unbusted = try await fixture.makeServer().makeApplication().test(.live) { client in
            try await client.execute(uri: url, method: .get) { try #require($0.headers[.eTag]) }
        }
        let busted = fixture.with {
            $0.etagBuster = "v2"
            $0.lastModifiedBuster = ISO8601DateFormatter().date(from: "2026-11-20T08:30:00Z")
        }
        seen.withLock { $0 = [] }
        // A server each, so neither finds the other's result.
        for headers: HTTPFields in [[.ifNoneMatch: unbusted], [.ifModifiedSince: Self.lastModified]] {
            try await busted.makeServer().makeApplication().test(.live) { client in
                try await client.execute(uri: url, method: .get, headers: headers) { #expect($0.status == .ok, "\(headers)") }
            }
        }
        #expect(seen.withLock { $0 } == ["- -", "- -"])
    }

    @Test("a cold server asks the origin with If-Modified-Since and answers its 304 without fetching the source")
    func ifModifiedSinceCold() async throws {
        let fixture = try ServerFixture()
        let seen = Self.recording(fixture)
        let url = ServerFixture.signed("/w:10/plain/\(fixture.origin.baseURL)/tagged.png")
        try await fixture.makeServer().makeApplication().test(.live) { client in
            try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: Self.lastModified]) { #expect($0.status == .notModified) }
            try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: "Sat, 31 Oct 2026 10:00:00 GMT"]) { response in
                #expect(response.status == .ok, "the origin sent the image: it is rendered")
                #expect(response.headers[.lastModified] == Self.lastModified)
            }
        }
        #expect(seen.withLock { $0 } == ["- \(Self.lastModified)", "- Sat, 31 Oct 2026 10:00:00 GMT"])
    }

    @Test("--use-etag off: no ETag and If-None-Match is not read; --use-last-modified off: no Last-Modified and If-Modified-Since is not read")
    func switchedOff() async throws {
        let noETag = try Self.fixture { $0.usesETag = false }
        let url = ServerFixture.signed("/w:10/plain/\(noETag.origin.baseURL)/tagged.png")
        try await noETag.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: url, method: .get) { response in
                #expect(response.headers[.eTag] == nil)
                #expect(response.headers[.lastModified] == Self.lastModified)
            }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "*"]) { #expect($0.status == .ok) }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "\"x\"", .ifModifiedSince: Self.lastModified]) {
                #expect($0.status == .notModified, "If-None-Match unread: If-Modified-Since decides")
            }
        }
        let noDate = try Self.fixture { $0.usesLastModified = false }
        try await noDate.makeServer().makeApplication().test(.router) { client in
            let other = ServerFixture.signed("/w:10/plain/\(noDate.origin.baseURL)/tagged.png")
            try await client.execute(uri: other, method: .get) { response in
                #expect(response.headers[.lastModified] == nil)
                #expect(response.headers[.eTag] != nil)
            }
            try await client.execute(uri: other, method: .get, headers: [.ifModifiedSince: Self.lastModified]) { #expect($0.status == .ok) }
        }
    }

    @Test("raw:1 forwards If-None-Match and If-Modified-Since to the origin and passes its 304 on")
    func rawForwards() async throws {
        let fixture = try Self.fixture()
        let url = ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/tagged.png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == "\"v1\"")
            }
            for headers: HTTPFields in [[.ifNoneMatch: "\"v1\""], [.ifModifiedSince: Self.lastModified]] {
                try await client.execute(uri: url, method: .get, headers: headers) { response in
                    #expect(response.status == .notModified, "\(headers)")
                    #expect(response.headers[.eTag] == "\"v1\"")
                    #expect(response.headers[.lastModified] == Self.lastModified)
                    #expect(response.body.readableBytes == 0)
                }
            }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "\"v0\""]) { #expect($0.status == .ok) }
        }
        #expect(fixture.origin.requestCount("/tagged.png") == 4)
        let off = try Self.fixture { $0.usesETag = false }
        try await off.makeServer().makeApplication().test(.router) { client in
            let url = ServerFixture.signed("/raw:1/plain/\(off.origin.baseURL)/tagged.png")
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "\"v1\""]) { response in
                #expect(response.status == .ok, "--use-etag off: If-None-Match is not forwarded")
                #expect(response.headers[.eTag] == nil)
            }
        }
    }
}
