import CodersPNG
import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import TestSupport
import Testing

@testable import ImageServer

/// The options end to end: sizes, pixels, headers and statuses on imgproxy's 200×100 test geometry
/// (a gradient here: red grows to the right, green downwards).
@Suite("imgproxy's options through the server")
struct ImgproxyOptionsTests {
    static func fixture(_ change: (inout ImageServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        let fixture = try ServerFixture().with(change)
        fixture.origin.serveBytes("/geometry.png", ServerFixture.png(width: 200, height: 100), contentType: "image/png")
        return fixture
    }

    static func image(_ response: TestResponse) throws -> PixelBuffer {
        try image(from: Data(buffer: response.body))
    }

    static func image(from data: Data) throws -> PixelBuffer {
        try ImageServer.defaultCoders().decode(data, options: ImageDecodeOptions()).firstFrame
    }

    @Test(
        "output sizes follow imgproxy's rules for every geometry option",
        arguments: [
            ("rs:fit:50:50", 50, 25), ("rs:fill-down:300:125", 200, 83), ("rs:force:50:0", 50, 100), ("rs:auto:50:100", 50, 25),
            ("s:300:0:1", 300, 150), ("rs:fit:100:100:1:1:so:0:10", 100, 100), ("dpr:2/rs:fit:50:50", 100, 50), ("z:0.5", 100, 50),
            ("mw:300", 300, 150), ("c:100:100:nowe", 100, 100), ("c:0.5:0.5", 100, 50), ("pd:10/rs:fit:50:50", 70, 45),
            ("pd:10:20/rs:fit:50:50", 90, 45), ("pd:10/dpr:2/rs:fit:50:50", 140, 90), ("ex:1:ce:0:0/rs:fit:300:300", 300, 300),
            ("exar:1/rs:fit:300:300", 200, 200), ("rot:90", 100, 200), ("fl:1:1/bl:2/sh:1/pix:4", 200, 100),
            ("rs:fill:300:400:0/g:sm", 200, 100), ("rs:fill::300", 200, 100),
        ] as [(String, Int, Int)])
    func sizes(options: String, width: Int, height: Int) async throws {
        let fixture = try Self.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "png"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: width, height: height))
            }
        }
    }

    @Test("with a disk cache (sources through the manager) the options give the same sizes and headers")
    func throughTheManager() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-options-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try Self.fixture { $0.cacheDirectory = directory }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for (options, width, height) in [("pd:10/dpr:2/rs:fit:50:50/bg:fff", 140, 90), ("c:0.5:0.5/fl:1", 100, 50), ("exar:1/rs:fit:300:300", 200, 200)] {
                try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "png"), method: .get) { response in
                    #expect(response.status == .ok, "\(options): \(String(buffer: response.body))")
                    let size = try ServerFixture.size(of: Data(buffer: response.body))
                    #expect(size == ImageSize(width: width, height: height), "\(options)")
                }
            }
            try await client.execute(uri: fixture.url("skp:png/w:10", "/geometry.png"), method: .get) { response in
                #expect(Data(buffer: response.body) == ServerFixture.png(width: 200, height: 100))
                #expect(response.headers[.contentDisposition] == "inline; filename=\"geometry.png\"")
            }
        }
    }

    @Test("crop gravity, flip, extend, padding and background land where imgproxy puts them")
    func pixels() async throws {
        let fixture = try Self.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            func pixel(_ options: String, _ ext: String, _ x: Int, _ y: Int) async throws -> ImageColor {
                try await client.execute(uri: fixture.url(options, "/geometry.png", ext: ext), method: .get) { response in
                    #expect(response.status == .ok, "\(options): \(String(buffer: response.body))")
                    return try Self.image(response).color(x: x, y: y)
                }
            }
            #expect(try await pixel("c:100:100:nowe", "png", 0, 0).red < 4, "the top-left window")
            #expect(try await pixel("c:100:100:soea", "png", 0, 0).red > 120, "the bottom-right window starts half-way")
            #expect(try await pixel("fl:1", "png", 0, 0).red > 250, "mirrored: the right edge is on the left")
            #expect(try await pixel("ex:1:nowe/rs:fit:300:300", "png", 0, 0).alpha == 255)
            #expect(try await pixel("ex:1:nowe/rs:fit:300:300", "png", 299, 299).alpha == 0, "extend adds transparency")
            #expect(try await pixel("ex:1:soea/rs:fit:300:300", "png", 0, 0).alpha == 0, "south-east gravity leaves the top-left empty")
            #expect(try await pixel("pd:10", "png", 5, 5).alpha == 0)
            #expect(try await pixel("pd:10", "png", 15, 15).alpha == 255)
            let red = try await pixel("pd:10/bg:ff0000", "png", 5, 5)
            #expect(red == ImageColor(red: 255, green: 0, blue: 0), "bg flattens the padding")
            let white = try await pixel("pd:10", "jpg", 5, 5)
            #expect(white.red > 250 && white.green > 250 && white.blue > 250, "JPEG flattens onto white without bg")
            let blue = try await pixel("pd:10/bg:0:0:255", "jpg", 5, 5)
            #expect(blue.blue > 240 && blue.red < 15, "JPEG flattens onto bg")
        }
    }

    @Test("Content-Disposition names the file as imgproxy does; exp shortens max-age; cb changes nothing in the image")
    func headers() async throws {
        let fixture = try Self.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let plain = try await client.execute(uri: fixture.url("", "/geometry.png"), method: .get) { response in
                #expect(response.headers[.contentDisposition] == "inline; filename=\"geometry.png\"")
                return Data(buffer: response.body)
            }
            try await client.execute(uri: fixture.url("fn:Zm9v:1", "/geometry.png"), method: .get) { response in
                #expect(response.headers[.contentDisposition] == "inline; filename=\"foo.png\"")
            }
            try await client.execute(uri: fixture.url("fn:Zm9v/att:1", "/geometry.png", ext: "jpg"), method: .get) { response in
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"Zm9v.jpg\"")
            }
            let soon = Int(Date().timeIntervalSince1970) + 60
            try await client.execute(uri: fixture.url("exp:\(soon)", "/geometry.png"), method: .get) { response in
                let maxAge = response.headers[.cacheControl].flatMap { Int($0.dropFirst("max-age=".count).prefix { $0.isNumber }) } ?? -1
                #expect((55...60).contains(maxAge), "\(response.headers[.cacheControl] ?? "")")
                #expect(response.headers[.expires] == nil, "imgproxy writes no Expires")
            }
            try await client.execute(uri: fixture.url("exp:1234567890", "/geometry.png"), method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "the URL has expired\n")
            }
            try await client.execute(uri: fixture.url("cb:v2", "/geometry.png"), method: .get) { response in
                #expect(Data(buffer: response.body) == plain)
            }
        }
    }

    @Test("statuses: signature before options, the query ignored, 422 for an unwritable format")
    func statuses() async throws {
        let fixture = try Self.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: "/AAAA/foo:1/plain/http://x/a.png", method: .get) { response in
                #expect(response.status == .forbidden, "an unsigned caller learns nothing about the parser")
            }
            try await client.execute(uri: fixture.url("w:10", "/geometry.png") + "?utm=1", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: fixture.url("sm:1/kcr:0/scp:0/ph:1/eth:1/q:0/mb:100000", "/geometry.png"), method: .get) {
                #expect($0.status == .ok, "accepted options that change nothing here")
            }
            try await client.execute(uri: fixture.url("f:svg", "/geometry.png"), method: .get) { #expect($0.status.code == 422) }
            try await client.execute(uri: fixture.url("msr:1", "/geometry.png"), method: .get) { #expect($0.status == .forbidden) }
        }
    }

    /// A `background` canvas of 200×100 with an opaque red 100×40 box at (30, 20).
    static func framed(_ background: ImageColor) throws -> Data {
        var buffer = try PixelBuffer(width: 200, height: 100, format: .rgba8, fill: background)
        var bytes = buffer.bytes
        for y in 20..<60 { for x in 30..<130 { bytes.replaceSubrange((y * 200 + x) * 4..<(y * 200 + x) * 4 + 4, with: [255, 0, 0, 255]) } }
        buffer = try PixelBuffer(width: 200, height: 100, format: .rgba8, bytes: bytes)
        return try PNGCoder().encode(Image(buffer, format: .png), as: .png, options: ImageEncodeOptions())
    }

    @Test(
        "trim cuts borders of the top-left colour or the given one, equal_hor keeps the sides even, before every other step",
        arguments: [
            ("/white.png", "t:10", 100, 40), ("/white.png", "t:10:ffffff", 100, 40), ("/white.png", "t:10::1", 140, 40),
            ("/white.png", "t:10::0:1", 100, 60), ("/white.png", "t:10:000000", 200, 100), ("/clear.png", "t:0:ff00ff", 100, 40),
            ("/white.png", "t:10/rs:fit:50:50", 50, 20), ("/white.png", "t:10/t:", 200, 100),
        ] as [(String, String, Int, Int)])
    func trim(path: String, options: String, width: Int, height: Int) async throws {
        let fixture = try Self.fixture()
        fixture.origin.serveBytes("/white.png", try Self.framed(.white), contentType: "image/png")
        fixture.origin.serveBytes("/clear.png", try Self.framed(.clear), contentType: "image/png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url(options, path, ext: "png"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let image = try Self.image(response)
                #expect(image.size == ImageSize(width: width, height: height))
                if width == 100 && height == 40 { #expect(image.color(x: 0, y: 0) == ImageColor(red: 255, green: 0, blue: 0)) }
            }
        }
    }

    @Test("sm:0 keeps EXIF without GPS; the default strips it but for the copyright and artist (kcr:1), kcr:0 strips them too; ar:0 keeps the stored orientation")
    func metadataAndOrientation() async throws {
        let fixture = try Self.fixture()
        let source = MetadataFixtures.png(
            ServerFixture.png(width: 40, height: 20), exif: MetadataFixtures.exif(orientation: 6), xmp: Array(MetadataFixtures.xmpMarker.utf8))
        fixture.origin.serveBytes("/exif.png", source, contentType: "image/png")
        let copyright = Data(MetadataFixtures.copyright.utf8), gps = Data(MetadataFixtures.gpsMarker.utf8)
        let (artist, xmp) = (Data(MetadataFixtures.artist.utf8), Data(MetadataFixtures.xmpMarker.utf8))
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for options in ["", "kcr:1"] {
                try await client.execute(uri: fixture.url(options, "/exif.png", ext: "png"), method: .get) { response in
                    let body = Data(buffer: response.body)
                    #expect(body.range(of: copyright) != nil && body.range(of: artist) != nil, "kcr: the copyright and artist stay")
                    #expect(body.range(of: gps) == nil && body.range(of: xmp) == nil)
                    let size = try ServerFixture.size(of: body)
                    #expect(size == ImageSize(width: 20, height: 40), "turned upright")
                    let exif = try #require(try ImageServer.defaultCoders().decode(body, options: ImageDecodeOptions(metadataHandling: .keepAll)).metadata.exif)
                    #expect(ExifEditor.orientation(in: exif) == nil, "no orientation tag: only the copyright fields")
                }
            }
            try await client.execute(uri: fixture.url("kcr:0", "/exif.png", ext: "png"), method: .get) { response in
                let body = Data(buffer: response.body)
                #expect(body.range(of: copyright) == nil && body.range(of: artist) == nil)
            }
            try await client.execute(uri: fixture.url("sm:0", "/exif.png", ext: "png"), method: .get) { response in
                let body = Data(buffer: response.body)
                #expect(body.range(of: copyright) != nil)
                #expect(body.range(of: gps) == nil, "a location never leaves the server")
            }
            try await client.execute(uri: fixture.url("ar:0", "/exif.png", ext: "png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 40, height: 20))
            }
        }
    }

    @Test("skp answers the source's bytes; raw streams them with the origin's type, the extension ignored")
    func passThrough() async throws {
        let fixture = try Self.fixture()
        let original = ServerFixture.png(width: 200, height: 100)
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("skp:png/rs:fill:4:4", "/geometry.png"), method: .get) { response in
                #expect(Data(buffer: response.body) == original)
            }
            try await client.execute(uri: fixture.url("skp:jpg/rs:fill:4:4", "/geometry.png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 4, height: 4))
            }
            try await client.execute(uri: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/geometry.png@bogus"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(Data(buffer: response.body) == original)
                #expect(response.headers[.contentSecurityPolicy] == ImageRequestHandler.contentSecurityPolicy)
            }
            fixture.origin.serveBytes("/page.html", Data("<script>alert(1)</script>".utf8), contentType: "text/html")
            try await client.execute(uri: ServerFixture.signed("/raw:1/plain/\(fixture.origin.baseURL)/page.html"), method: .get) { response in
                #expect(response.headers[.contentType] == "application/octet-stream", "an origin's HTML is never served as this host's")
            }
        }
    }

    @Test("presets: pr:, the default preset for every URL, presets-only URLs")
    func presets() async throws {
        let fixture = try Self.fixture {
            $0.presets = [try! ProcessingPreset("a=rs:fill:100:100"), try! ProcessingPreset("default=rs:fit:50:50")]
        }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("", "/geometry.png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 50, height: 25))
            }
            try await client.execute(uri: fixture.url("pr:a", "/geometry.png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 100, height: 100))
            }
            try await client.execute(uri: fixture.url("pr:b", "/geometry.png"), method: .get) { #expect($0.status == .notFound) }
        }
        let only = fixture.with { $0.onlyPresets = true }
        try await only.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: only.url("a", "/geometry.png"), method: .get) { response in
                let size = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(size == ImageSize(width: 100, height: 100))
            }
            try await client.execute(uri: only.url("w:10", "/geometry.png"), method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("a preset with a bad option or no options is refused when configured", arguments: ["a=q:500", "a", "=w:1", "a=w", "a=b=c"])
    func badPresets(definition: String) {
        #expect(throws: ProcessingPreset.Invalid.self) { try ProcessingPreset(definition) }
    }
}
