import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import TestSupport
import Testing

@testable import ImageServer

@Suite("Image responses through HummingbirdTesting")
struct ImageServerResponseTests {
    @Test("a signed URL answers the resized image with its type, length, max-age and ETag")
    func resizedImage() async throws {
        let fixture = try ServerFixture()
        let app = fixture.makeServer().makeApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: fixture.url("rs:fit:32:32", "/photo.png", ext: "png"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                #expect(response.headers[.cacheControl] == "max-age=31536000, public")
                #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                #expect(response.headers[.vary] == nil)
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 32, height: 24))
            }
            // fill to a square, as JPEG by the f: option.
            try await client.execute(uri: fixture.url("rs:fill:20:20/g:sm/f:jpg", "/photo.png"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 20, height: 20))
            }
        }
    }

    @Test("with no format asked, Accept picks WebP, and the answer varies on Accept")
    func negotiation() async throws {
        let fixture = try ServerFixture()
        let app = fixture.makeServer().makeApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: fixture.url("w:16", "/photo.png"), method: .get, headers: [.accept: "image/avif;q=0,image/webp,*/*"]) { response in
                #expect(response.headers[.contentType] == "image/webp")
                #expect(response.headers[.vary] == "Accept")
            }
            try await client.execute(uri: fixture.url("w:16", "/photo.png"), method: .get, headers: [.accept: "image/webp;q=0, */*"]) { response in
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.vary] == "Accept")
            }
            try await client.execute(uri: fixture.url("w:16", "/photo.png"), method: .get) { response in
                #expect(response.headers[.contentType] == "image/png")
            }
        }
    }

    @Test("If-None-Match with the ETag answers 304 without a body; another ETag gets the image")
    func conditional() async throws {
        let fixture = try ServerFixture()
        let app = fixture.makeServer().makeApplication()
        try await app.test(.router) { client in
            let url = fixture.url("w:16", "/photo.png", ext: "png")
            let etag = try await client.execute(uri: url, method: .get) { try #require($0.headers[.eTag]) }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "\"other\", \(etag)"]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == etag)
            }
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: "\"other\""]) { response in
                #expect(response.status == .ok)
            }
            // The same options spelled differently are the same result, so the same ETag.
            let respelled = fixture.url("width:16/rt:fit", "/photo.png", ext: "png")
            try await client.execute(uri: respelled, method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
            }
        }
        // A new server knows neither the result nor the source: it does the work, then answers 304.
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let url = fixture.url("w:16", "/photo.png", ext: "png")
            let etag = try await client.execute(uri: url, method: .get) { try #require($0.headers[.eTag]) }
            #expect(fixture.origin.requestCount("/photo.png") == 2)
            try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: etag]) { #expect($0.status == .notModified) }
        }
    }

    @Test(
        "failures answer their status with a one-line reason and no-store",
        arguments: [
            ("/sig/foo:2/aGVsbG8", 403, "invalid signature"),
            (ServerFixture.signed("/foo:2/aGVsbG8"), 404, "unknown processing option 'foo'"),
            (ServerFixture.signed("/w:10/aGVsbG8"), 404, "the source is not a URL"),
            ("/AAAA/w:10/aGVsbG8", 403, "invalid signature"),
            ("/insecure/w:10/aGVsbG8", 403, "unsigned URLs are not accepted"),
        ])
    func requestErrors(target: String, status: Int, reason: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: target, method: .get) { response in
                #expect(response.status.code == status)
                #expect(String(buffer: response.body) == reason + "\n")
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test("source failures as imgproxy answers them: the origin's 4xx, 502 for its 5xx, 422 for what is no image, broken or too large")
    func sourceErrors() async throws {
        let fixture = try ServerFixture().with {
            $0.maxSourceBytes = 4096
        }
        fixture.origin.serveStatus("/missing.png", 404)
        fixture.origin.serveBytes("/text.png", Data("just some text, not an image".utf8))
        fixture.origin.serveBytes("/broken.png", ServerFixture.png(width: 64, height: 48).prefix(60))
        fixture.origin.serveBytes("/large.png", Data(count: 8192))
        fixture.origin.serveStatus("/error.png", 500)
        fixture.origin.serveStatus("/forbidden.png", 403)
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for (path, status) in [("/missing.png", 404), ("/forbidden.png", 403), ("/text.png", 422), ("/broken.png", 422), ("/large.png", 422), ("/error.png", 502)] {
                try await client.execute(uri: fixture.url("w:10", path), method: .get) { response in
                    #expect(response.status.code == status, "\(path)")
                    let body = String(buffer: response.body)
                    #expect(body.hasSuffix("\n") && body.dropLast().contains("\n") == false, "\(path): \(body)")
                    #expect(!body.contains("127.0.0.1"), "\(path): the reason shows the origin: \(body)")
                }
            }
        }
    }

    @Test("limits: source pixels and output pixels answer 422 naming the limit")
    func pixelLimits() async throws {
        let fixture = try ServerFixture().with {
            $0.maxSourcePixels = 1000
            $0.maxOutputPixels = 2000
        }
        fixture.origin.serveBytes("/small.png", ServerFixture.png(width: 30, height: 30))
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:10", "/photo.png"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("source pixels limit"))
            }
            try await client.execute(uri: fixture.url("rs:fit:100:100:1", "/small.png"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("output pixels limit"))
            }
        }
    }

    @Test("animations: one frame by default (a still), all of them within --max-frames, 422 past it")
    func animationFrames() async throws {
        let animation = try Corpus.data("gif", "peterdn-gif-test-suite/animated_loop.gif")
        let fixture = try ServerFixture()
        fixture.origin.serveBytes("/anim.gif", animation, contentType: "image/gif")
        let coders = ImageServer.defaultCoders()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:50", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status == .ok)
                let image = try coders.decode(Data(buffer: response.body), options: ImageDecodeOptions())
                #expect(image.frameCount == 1)
                #expect(image.pixelSize == ImageSize(width: 50, height: 50))
            }
        }
        try await fixture.with({ $0.maxFrames = 10 }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:50", "/anim.gif", ext: "webp"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let image = try coders.decode(Data(buffer: response.body), options: ImageDecodeOptions())
                #expect(image.frameCount == 4)
            }
        }
        try await fixture.with({ $0.maxFrames = 3 }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:50", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("animation frames limit"))
            }
        }
    }

    @Test("with the SSRF guard on, a loopback source is refused with 404 (imgproxy's answer) and no connection is made")
    func ssrfGuard() async throws {
        let fixture = try ServerFixture().with {
            $0.allowsPrivateSources = false
        }
        let listener = try ConnectionCounter(hosts: ["127.0.0.1", "::1"])
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for host in ["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "2130706433"] {
                let path = "/w:10/plain/" + "http://\(host):\(listener.port)/a.png".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: ServerFixture.signed(path), method: .get) { response in
                    #expect(response.status.code == 404, "\(host)")
                    #expect(String(buffer: response.body) == "the source address is not allowed\n")
                }
            }
        }
        #expect(listener.count() == 0)
    }

    @Test("an allow-list refuses other hosts with 404 (imgproxy's answer) before fetching, example.com@evil.com included")
    func allowList() async throws {
        let fixture = try ServerFixture().with {
            $0.allowedSources = [SourcePrefix("http://example.com/")!]
        }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:10", "/photo.png"), method: .get) { #expect($0.status.code == 404) }
            let sneaky = ServerFixture.signed("/w:10/plain/http://example.com%40127.0.0.1:\(fixture.origin.port)/photo.png")
            try await client.execute(uri: sneaky, method: .get) { response in
                #expect(response.status.code == 404)
                #expect(String(buffer: response.body) == "the source is not in the allowed sources\n")
            }
        }
        #expect(fixture.origin.acceptedConnectionCount == 0)
    }

    @Test("a redirect outside the allowed sources is refused with 403 before anything connects to its target")
    func redirectOutsideAllowList() async throws {
        let base = try ServerFixture()
        let fixture = base.with { $0.allowedSources = [SourcePrefix(base.origin.baseURL + "/allowed/")!] }
        let elsewhere = try ConnectionCounter()
        fixture.origin.serveBytes("/allowed/photo.png", ServerFixture.png(width: 8, height: 8))
        fixture.origin.serveStatus("/allowed/moved.png", 302, headers: ["Location": "/photo.png"])
        fixture.origin.serveStatus("/allowed/away.png", 301, headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/secret"])
        fixture.origin.serveStatus("/allowed/twice.png", 307, headers: ["Location": "/allowed/moved.png"])
        fixture.origin.serveStatus("/allowed/inside.png", 302, headers: ["Location": "/allowed/photo.png"])
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for path in ["/allowed/moved.png", "/allowed/away.png", "/allowed/twice.png"] {
                try await client.execute(uri: fixture.url("w:4", path), method: .get) { response in
                    #expect(response.status.code == 403, "\(path)")
                    #expect(String(buffer: response.body) == "the source redirected outside the allowed sources\n", "\(path)")
                }
            }
            try await client.execute(uri: fixture.url("w:4", "/allowed/inside.png"), method: .get) { #expect($0.status == .ok) }
        }
        #expect(fixture.origin.requestCount("/photo.png") == 0, "the off-list path on the same origin was never requested")
        #expect(elsewhere.count() == 0, "the other host never got a connection")
    }

    @Test("local:/// sources are read under --local-root only")
    func localSources() async throws {
        let fixture = try ServerFixture()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try ServerFixture.png(width: 40, height: 20).write(to: root.appendingPathComponent("a.png"))
        try Data("secret".utf8).write(to: root.deletingLastPathComponent().appendingPathComponent("serve-outside-\(root.lastPathComponent)"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("link.png"),
            withDestinationURL: root.deletingLastPathComponent().appendingPathComponent("serve-outside-\(root.lastPathComponent)"))
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent().appendingPathComponent("serve-outside-\(root.lastPathComponent)")) }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/local:///a.png@png"), method: .get) { #expect($0.status.code == 404) }
        }
        try await fixture.with({ $0.localRoot = root.path }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/local:///a.png@png"), method: .get) { response in
                #expect(response.status == .ok)
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 10, height: 5))
            }
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/local:///link.png@png"), method: .get) { #expect($0.status.code == 403) }
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/local:///none.png@png"), method: .get) { #expect($0.status.code == 404) }
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/local:///../a.png@png"), method: .get) { #expect($0.status.code == 404) }
        }
    }

    @Test("the memory cache answers a repeated request without the origin; identical requests share one fetch")
    func caching() async throws {
        let fixture = try ServerFixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.execute(uri: fixture.url("w:20", "/photo.png", ext: "png"), method: .get) { #expect($0.status == .ok) } }
                }
                try await group.waitForAll()
            }
            #expect(fixture.origin.requestCount("/photo.png") == 1)
            try await client.execute(uri: fixture.url("w:20", "/photo.png", ext: "png"), method: .get) { #expect($0.status == .ok) }
            #expect(fixture.origin.requestCount("/photo.png") == 1)
        }
    }

    @Test("the disk cache keeps results across servers")
    func diskCache() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try ServerFixture().with {
            $0.cacheDirectory = directory
            $0.memoryLimit = 0
        }
        let url = fixture.url("w:20", "/photo.png", ext: "png")
        let first = try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: url, method: .get) { Data(buffer: $0.body) }
        }
        let second = try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: url, method: .get) { Data(buffer: $0.body) }
        }
        #expect(first == second)
        #expect(fixture.origin.requestCount("/photo.png") == 1)
    }
}
