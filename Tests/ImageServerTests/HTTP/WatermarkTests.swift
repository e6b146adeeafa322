import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import Testing

@testable import ImageServer

/// `wm:` end to end on the 200×100 gradient (red grows to the right, green downwards, blue 90)
/// with an opaque blue 20×10 watermark.
@Suite("the watermark through the server")
struct WatermarkTests {
    static let blue = ImageColor(red: 0, green: 0, blue: 255)

    static func fixture(opacity: Double = 1) throws -> ServerFixture {
        try ImgproxyOptionsTests.fixture {
            $0.watermark = Image(try! PixelBuffer(width: 20, height: 10, format: .rgba8, fill: blue), format: .png)
            $0.watermarkOpacity = opacity
        }
    }

    /// The colours at `points` of the answer to `options` on the gradient, as PNG.
    static func pixels(_ fixture: ServerFixture, _ options: String, _ points: [(Int, Int)]) async throws -> [ImageColor] {
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "png"), method: .get) { response in
                #expect(response.status == .ok, "\(options): \(String(buffer: response.body))")
                let image = try ImgproxyOptionsTests.image(response)
                return points.map { image.color(x: $0.0, y: $0.1) }
            }
        }
    }

    static func isBlue(_ color: ImageColor) -> Bool { color.red < 4 && color.green < 4 && color.blue > 250 }

    @Test(
        "the position and offsets put the mark where imgproxy puts it, past the edges too",
        arguments: [
            // (options, points inside the mark, points outside it)
            ("wm:1:nowe", [(0, 0), (19, 9)], [(20, 0), (0, 10)]),
            ("wm:1:soea:10:5", [(170, 85), (189, 94)], [(169, 85), (190, 94), (170, 95)]),
            ("wm:1:ce", [(90, 45), (109, 54)], [(89, 45), (110, 45), (90, 55)]),
            ("wm:1:no:0:0.1", [(90, 10), (109, 19)], [(90, 9), (90, 20)]),
            ("wm:1:nowe:-10:-5", [(0, 0), (9, 4)], [(10, 0), (0, 5)]),
            ("wm:1:nowe:0:0:0.5", [(0, 0), (99, 49)], [(100, 0), (0, 50)]),
            ("wm:1:re:20:10", [(90, 45), (50, 45), (10, 5), (130, 65), (109, 54)], [(110, 45), (90, 55), (75, 45)]),
        ] as [(String, [(Int, Int)], [(Int, Int)])])
    func position(options: String, inside: [(Int, Int)], outside: [(Int, Int)]) async throws {
        let colors = try await Self.pixels(try Self.fixture(), options, inside + outside)
        for (point, color) in zip(inside, colors.prefix(inside.count)) { #expect(Self.isBlue(color), "\(options) at \(point): \(color)") }
        for (point, color) in zip(outside, colors.dropFirst(inside.count)) { #expect(!Self.isBlue(color), "\(options) at \(point): \(color)") }
    }

    @Test("a tile with no gaps covers the whole image")
    func replicateCovers() async throws {
        let colors = try await Self.pixels(try Self.fixture(), "wm:1:re", [(0, 0), (199, 99), (57, 33)])
        #expect(colors.allSatisfy(Self.isBlue), "\(colors)")
    }

    @Test("the URL's opacity times the server's blends the mark with the image")
    func opacity() async throws {
        // Under the mark's corner the gradient is (0, 0, 90): half blue over it is about 172.
        for (fixture, options) in [(try Self.fixture(), "wm:0.5:nowe"), (try Self.fixture(opacity: 0.5), "wm:1:nowe"), (try Self.fixture(opacity: 0.5), "wm:1:nowe/wm:1")] {
            let color = try await Self.pixels(fixture, options, [(0, 0)])[0]
            #expect(color.red < 3 && color.green < 3 && (170...175).contains(color.blue), "\(options): \(color)")
        }
        let quarter = try await Self.pixels(try Self.fixture(opacity: 0.5), "wm:0.5:nowe", [(0, 0)])[0]
        #expect((128...133).contains(quarter.blue), "0.5 × 0.5: \(quarter)")
    }

    @Test("a transparent result keeps the mark's coverage; JPEG results are marked too")
    func alphaAndJPEG() async throws {
        let fixture = try Self.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("pd:10/wm:0.5:nowe", "/geometry.png", ext: "png"), method: .get) { response in
                let color = try ImgproxyOptionsTests.image(response).color(x: 0, y: 0)
                #expect(color.blue == 255 && (126...129).contains(color.alpha), "half a mark over transparency: \(color)")
            }
            try await client.execute(uri: fixture.url("wm:1:soea", "/geometry.png", ext: "jpg"), method: .get) { response in
                let color = try ImgproxyOptionsTests.image(response).color(x: 195, y: 95)
                #expect(color.blue > 230 && color.red < 30, "\(color)")
            }
        }
    }

    @Test("without a watermark image wm: does nothing: the same bytes as without it")
    func noWatermark() async throws {
        let fixture = try ImgproxyOptionsTests.fixture()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            let plain = try await client.execute(uri: fixture.url("w:50", "/geometry.png"), method: .get) { Data(buffer: $0.body) }
            try await client.execute(uri: fixture.url("w:50/wm:1:re", "/geometry.png"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == plain)
            }
        }
    }

    @Test("a new watermark gives new ETags; the same one the same")
    func etags() async throws {
        func etag(_ fixture: ServerFixture) async throws -> String? {
            try await fixture.makeServer().makeApplication().test(.router) { client in
                try await client.execute(uri: fixture.url("wm:1", "/geometry.png"), method: .get) { $0.headers[.eTag] }
            }
        }
        let fixture = try Self.fixture()
        let blue = try await etag(fixture)
        #expect(blue != nil)
        #expect(blue == (try await etag(fixture.with { $0.watermarkOpacity = 1 })))
        let red = fixture.with { $0.watermark = Image(try! PixelBuffer(width: 20, height: 10, format: .rgba8, fill: ImageColor(red: 255, green: 0, blue: 0)), format: .png) }
        #expect(blue != (try await etag(red)))
    }
}
