import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineConformance
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
        let png = ServerFixture.png(width: 40, height: 20)
        fixture.origin.route("/tagged.png") { request, connection in
            let validators = ["ETag": "\"v1\"", "Last-Modified": lastModified]
            if request.headers["if-none-match"] == "\"v1\"" || (request.headers["if-none-match"] == nil && request.headers["if-modified-since"] == lastModified) {
                connection.respond(status: 304, headers: validators)
            } else {
                connection.respond(status: 200, headers: validators.merging(["Content-Type": "image/png"]) { $1 }, body: png)
            }
        }
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

    @Test("a cold server answers If-Modified-Since after fetching the source")
    func ifModifiedSinceCold() async throws {
        let fixture = try Self.fixture()
        let url = ServerFixture.signed("/w:10/plain/\(fixture.origin.baseURL)/tagged.png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: url, method: .get, headers: [.ifModifiedSince: Self.lastModified]) { #expect($0.status == .notModified) }
        }
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
