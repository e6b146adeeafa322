import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import Testing

@testable import ImageServer

/// imgproxy's server settings through the server: secret, CORS, allowed options, signature size,
/// trusted signatures, base URL, qualities, format negotiation and the fallback image.
@Suite("imgproxy's server settings")
struct ServerSettingsTests {
    static func fixture(_ change: (inout ImageServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        try ImgproxyOptionsTests.fixture(change)
    }

    @Test("--secret: image requests without Authorization: Bearer SECRET are 403 before their URL is read; /health is not asked")
    func secret() async throws {
        let fixture = try Self.fixture { $0.secret = "s3cr3t" }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let url = fixture.url("w:10", "/geometry.png")
            try await client.execute(uri: url, method: .get) { #expect($0.status == .forbidden) }
            try await client.execute(uri: url, method: .get, headers: [.authorization: "Bearer wrong!"]) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/x/foo:1/plain/a", method: .get) { #expect($0.status == .forbidden, "before the URL is read") }
            try await client.execute(uri: url, method: .get, headers: [.authorization: "Bearer s3cr3t"]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("--allow-origin: CORS headers on images, errors and OPTIONS")
    func cors() async throws {
        let fixture = try Self.fixture { $0.allowOrigin = "https://app.example" }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for (uri, method, status) in [
                (fixture.url("w:10", "/geometry.png"), HTTPRequest.Method.get, 200), (fixture.url("foo:1", "/geometry.png"), .get, 404),
                (fixture.url("w:10", "/geometry.png"), .options, 200),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status.code == status)
                    #expect(response.headers[.accessControlAllowOrigin] == "https://app.example")
                    #expect(response.headers[.accessControlAllowMethods] == "GET, OPTIONS")
                }
            }
        }
        let plain = try Self.fixture()
        try await plain.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: plain.url("w:10", "/geometry.png"), method: .get) { #expect($0.headers[.accessControlAllowOrigin] == nil) }
        }
    }

    @Test("--allowed-processing-options: names as written, 404 for the others; presets use any")
    func allowedOptions() async throws {
        let fixture = try Self.fixture {
            $0.allowedProcessingOptions = ["w", "pr"]
            $0.presets = [try! ProcessingPreset("small=rs:fit:20:20/bl:1")]
        }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("w:10", "/geometry.png"), method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: fixture.url("width:10", "/geometry.png"), method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "the option 'width' is not allowed on this server\n")
            }
            try await client.execute(uri: fixture.url("pr:small", "/geometry.png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 20, height: 10))
            }
        }
    }

    @Test("--signature-size: the MAC's first bytes sign; --trusted-signatures pass as they are")
    func signatures() async throws {
        let fixture = try Self.fixture {
            $0.signatureSize = 8
            $0.trustedSignatures = ["trusted-one"]
        }
        let path = "/w:10/plain/\(fixture.origin.baseURL)/geometry.png"
        let full = try #require(Data(base64URLEncoded: ServerFixture.key.signature(for: path)))
        let short = Data(full.prefix(8)).base64URLEncodedWithoutPadding
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: "/" + short + path, method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/" + full.base64URLEncodedWithoutPadding + path, method: .get) { #expect($0.status == .forbidden) }
            let wrong = Data(full.prefix(7) + [full[7] ^ 1]).base64URLEncodedWithoutPadding
            try await client.execute(uri: "/" + wrong + path, method: .get) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/trusted-one" + path, method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("--base-url goes in front of sources that do not start with it")
    func baseURL() async throws {
        let base = try Self.fixture()
        let fixture = base.with { $0.baseURL = base.origin.baseURL + "/" }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/w:10/plain/geometry.png"), method: .get) { #expect($0.status == .ok) }
            let encoded = Data("geometry.png".utf8).base64URLEncodedWithoutPadding
            try await client.execute(uri: ServerFixture.signed("/w:10/\(encoded)"), method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: fixture.url("w:10", "/geometry.png"), method: .get) { #expect($0.status == .ok, "a full URL stays as it is") }
        }
    }

    @Test("--quality and --format-quality: the URL's q and fq first, then the format's, then the default")
    func qualities() async throws {
        func size(_ options: String, _ change: @escaping (inout ImageServerConfiguration) -> Void) async throws -> Int {
            let fixture = try Self.fixture(change)
            return try await fixture.makeServer().makeApplication().test(.router) { client in
                try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "jpg"), method: .get) { $0.body.readableBytes }
            }
        }
        func onlyDefault(_ quality: Int) -> (inout ImageServerConfiguration) -> Void {
            { configuration in
                configuration.defaultQuality = quality
                configuration.formatQuality["jpeg"] = nil
            }
        }
        let low = try await size("", onlyDefault(10))
        let high = try await size("", onlyDefault(95))
        #expect(low < high)
        #expect(
            try await size(
                "",
                {
                    $0.defaultQuality = 95
                    $0.formatQuality["jpeg"] = 10
                }) == low, "the format's quality over the default")
        #expect(try await size("fq:jpeg:95", { $0.formatQuality["jpeg"] = 10 }) == high, "the URL's over the format's")
        #expect(try await size("q:10", { $0.formatQuality["jpeg"] = 95 }) == low)
    }

    /// AVIF and JPEG XL are the service's coders, not this library's: ServeSettingsTests has theirs.
    @Test("Each output format's default quality is the one that reaches the same perceived quality", arguments: ["jpg", "webp"])
    func perceivedQualityDefaults(ext: String) async throws {
        let format = try #require(ImageFormat.named(ext))
        let defaults = ImageServerConfiguration.perceivedQualityDefaults
        #expect(defaults == ["jpeg": 65, "webp": 82, "avif": 63, "jxl": 72])
        let fixture = try Self.fixture()
        #expect(fixture.configuration.formatQuality == defaults)
        let quality = try #require(defaults[format.identifier])
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let plain = try await client.execute(uri: fixture.url("", "/photo.png", ext: ext), method: .get) { Data(buffer: $0.body) }
            let named = try await client.execute(uri: fixture.url("q:\(quality)", "/photo.png", ext: ext), method: .get) { Data(buffer: $0.body) }
            let other = try await client.execute(uri: fixture.url("q:\(quality - 30)", "/photo.png", ext: ext), method: .get) { Data(buffer: $0.body) }
            #expect(plain == named, "no q: encodes \(ext) at \(quality)")
            #expect(plain != other)
        }
    }

    @Test("WebP by Accept when the URL names no format, unless turned off; enforced over the URL's format; Vary: Accept")
    func negotiation() async throws {
        func answer(_ ext: String?, _ change: @escaping (inout ImageServerConfiguration) -> Void) async throws -> (String?, String?) {
            let fixture = try Self.fixture(change)
            return try await fixture.makeServer().makeApplication().test(.router) { client in
                try await client.execute(uri: fixture.url("w:10", "/geometry.png", ext: ext), method: .get, headers: [.accept: "image/avif,image/webp,*/*"]) {
                    ($0.headers[.contentType], $0.headers[.vary])
                }
            }
        }
        #expect(try await answer(nil, { _ in }) == ("image/webp", "Accept"), "the default coders write no AVIF: WebP")
        #expect(
            try await answer(
                nil,
                {
                    $0.autoWebP = false
                    $0.autoAVIF = false
                }) == ("image/png", nil))
        #expect(try await answer("png", { _ in }) == ("image/png", nil))
        #expect(try await answer("png", { $0.enforceWebP = true }) == ("image/webp", "Accept"))
    }

    @Test("--fallback-image: a source that cannot be fetched is answered with the fallback, processed, with its status and TTL")
    func fallback() async throws {
        let mark = Image(try PixelBuffer(width: 40, height: 40, format: .rgb8, fill: ImageColor(red: 0, green: 255, blue: 0)), format: .png)
        let fixture = try Self.fixture {
            $0.fallbackImage = mark
            $0.fallbackImageTTL = 60
        }
        fixture.origin.serveStatus("/gone.png", 404)
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: fixture.url("w:10", "/gone.png", ext: "png"), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl] == "max-age=60, public")
                    #expect(response.headers[.eTag] == nil)
                    let image = try ImgproxyOptionsTests.image(response)
                    #expect(image.size == ImageSize(width: 10, height: 10))
                    #expect(image.color(x: 5, y: 5).green > 250)
                }
            }
            try await client.execute(uri: fixture.url("w:10", "/geometry.png", ext: "png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 10, height: 5), "a source that works is answered")
            }
            try await client.execute(uri: fixture.url("foo:1", "/gone.png"), method: .get) { #expect($0.status == .notFound, "an invalid URL gets no fallback") }
        }
        #expect(fixture.origin.requestCount("/gone.png") == 2, "each request tries the source again")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-fallback-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let throughManager = fixture.with { $0.cacheDirectory = directory }
        try await throughManager.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: throughManager.url("w:10", "/gone.png", ext: "png"), method: .get) { response in
                #expect(response.status == .ok, "with a disk cache the source goes through the manager, and fails the same way")
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 10, height: 10))
            }
        }
        let keeping = fixture.with { $0.fallbackImageStatus = 0 }
        try await keeping.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: keeping.url("", "/gone.png", ext: "png"), method: .get) { response in
                #expect(response.status == .notFound)
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 40, height: 40))
            }
        }
    }

    @Test("raw: the origin's bytes with its ETag and Last-Modified; processed images with its Last-Modified")
    func raw() async throws {
        let fixture = try Self.fixture { $0.workers = 1 }
        let png = ServerFixture.png(width: 8, height: 8)
        fixture.origin.route("/tagged.png") { _, connection in
            connection.respond(
                status: 200, headers: ["Content-Type": "image/png", "ETag": "\"v1\"", "Last-Modified": "Sun, 01 Nov 2026 10:00:00 GMT"], body: png)
        }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/tagged.png"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == png)
                #expect(response.headers[.eTag] == "\"v1\"")
                #expect(response.headers[.lastModified] == "Sun, 01 Nov 2026 10:00:00 GMT")
            }
            try await client.execute(uri: ServerFixture.signed("/w:4/plain/\(fixture.origin.baseURL)/tagged.png"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.lastModified] == "Sun, 01 Nov 2026 10:00:00 GMT", "processed images pass the origin's on, as imgproxy's do")
                #expect(response.headers[.eTag] != "\"v1\"", "the ETag is the result's own")
            }
            try await client.execute(uri: fixture.url("w:4", "/geometry.png"), method: .get) { #expect($0.headers[.lastModified] == nil) }
        }
    }
}
