import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import Testing

@testable import ImageServer

/// `GET /info/{signature}/{options}/{source}`: JSON describing the source, signed as image URLs.
@Suite("/info describes a source")
struct InfoTests {
    /// `url` (a signed image URL of the fixture) as an info URL.
    static func info(_ url: String) -> String { "/info" + url }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test("width, height, format, frames, orientation, ICC profile, EXIF, BlurHash and dominant colour")
    func describes() async throws {
        let fixture = try ImgproxyOptionsTests.fixture()
        fixture.origin.serveBytes("/framed.png", try ImgproxyOptionsTests.framed(ImageColor(red: 0, green: 0, blue: 255)), contentType: "image/png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: Self.info(fixture.url("rs:fit:10:10", "/framed.png")), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(response.headers[.contentType] == "application/json")
                let info = try Self.json(response)
                #expect(info["width"] as? Int == 200 && info["height"] as? Int == 100, "the source, not the options' result")
                #expect(info["format"] as? String == "png")
                #expect(info["frames"] as? Int == 1 && info["orientation"] as? Int == 1)
                #expect(info["iccProfile"] is NSNull && info["hasExif"] as? Bool == false)
                let dominant = try #require(info["dominantColor"] as? String)
                let channels = try #require(UInt32(dominant.dropFirst(), radix: 16))
                #expect(dominant.count == 7 && channels >> 16 < 8 && (channels >> 8) & 0xFF < 8 && channels & 0xFF > 247, "the background, not the red box: \(dominant)")
                let hash = try #require(info["blurHash"] as? String)
                #expect(hash.count == 28 && hash.hasPrefix("L"), "\(hash)")
            }
        }
    }

    @Test("it is checked as image URLs are: signature, options, allowed sources, the origin's answer")
    func statuses() async throws {
        let fixture = try ImgproxyOptionsTests.fixture()
        fixture.origin.serveStatus("/gone.png", 404)
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for (uri, status) in [
                ("/info/AAAA/plain/\(fixture.origin.baseURL)/geometry.png", 403), (Self.info(fixture.url("foo:1", "/geometry.png")), 404),
                (Self.info(fixture.url("", "/gone.png")), 404), ("/info/x", 404),
            ] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status.code == status, "\(uri)") }
            }
        }
        let limited = fixture.with { $0.allowedSources = [SourcePrefix("https://cdn.example/")!] }
        try await limited.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: Self.info(limited.url("", "/geometry.png")), method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("a BlurHash's average colour is the image's; different images hash differently")
    func blurHash() throws {
        let red = try PixelBuffer(width: 16, height: 8, format: .rgb8, fill: ImageColor(red: 255, green: 0, blue: 0))
        let hash = BlurHash.encode(red)
        #expect(hash.count == 28)
        #expect(hash.dropFirst(2).prefix(4) == Substring(BlurHash.base83(0xFF0000, length: 4)), "the DC component is the colour: \(hash)")
        let gradient = try ImgproxyOptionsTests.image(from: ServerFixture.png(width: 32, height: 16))
        #expect(BlurHash.encode(gradient) != hash)
        #expect(BlurHash.encode(gradient, componentsX: 1, componentsY: 1).count == 6)
        #expect(BlurHash.base83(0, length: 2) == "00" && BlurHash.base83(82, length: 1) == "~")
    }
}
