import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineCore
import TestSupport
import Testing

@testable import ImageServer

/// imgproxy's security options (`msr`, `msfs`, `maf`, `mafr`, `mrd`), the result-dimension and
/// frame-resolution limits, and the per-option defaults, through a real server on imgproxy's
/// 200×100 test geometry and a 4-frame 100×100 GIF.
@Suite("security options, result limits and per-option defaults through the server")
struct SecurityOptionsTests {
    static func fixture(_ change: (inout ImageServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        let fixture = try ServerFixture().with(change)
        fixture.origin.serveBytes("/geometry.png", ServerFixture.png(width: 200, height: 100), contentType: "image/png")
        fixture.origin.serveBytes("/anim.gif", try Corpus.data("gif", "peterdn-gif-test-suite/animated_loop.gif"), contentType: "image/gif")
        return fixture
    }

    static func secured(_ change: (inout ImageServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        try fixture {
            $0.allowsSecurityOptions = true
            change(&$0)
        }
    }

    @Test("without --allow-security-options each security option, by either name, is 403 and names the setting")
    func refusedByDefault() async throws {
        let fixture = try Self.fixture()
        let options = [
            "msr:1", "max_src_resolution:1", "msfs:10", "max_src_file_size:10", "maf:2", "max_animation_frames:2", "mafr:1",
            "max_animation_frame_resolution:1", "mrd:10", "max_result_dimension:10",
        ]
        try await fixture.makeServer().makeApplication().test(.router) { client in
            for option in options {
                try await client.execute(uri: fixture.url(option, "/geometry.png"), method: .get) { response in
                    #expect(response.status == .forbidden, "\(option)")
                    #expect(String(buffer: response.body).contains("--allow-security-options"), "\(option)")
                }
            }
            try await client.execute(uri: fixture.url("", "/geometry.png"), method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("with it, msr and msfs replace the source limits for the URL, up and down (422 past them)")
    func sourceLimits() async throws {
        // The server allows 10,000 pixels; the source has 20,000.
        let fixture = try Self.secured { $0.maxSourcePixels = 10_000 }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("", "/geometry.png"), method: .get) { #expect($0.status.code == 422) }
            try await client.execute(uri: fixture.url("msr:0.02", "/geometry.png"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: fixture.url("max_src_resolution:0.019", "/geometry.png"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("source pixels limit"))
            }
            try await client.execute(uri: fixture.url("msr:0.02/msfs:10", "/geometry.png"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("larger than the server accepts"))
            }
            try await client.execute(uri: fixture.url("msr:0.02/msfs:0", "/geometry.png"), method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: fixture.url("msr:abc", "/geometry.png"), method: .get) { #expect($0.status == .notFound) }
            // /info describes the source within the same limits.
            try await client.execute(uri: InfoTests.info(fixture.url("", "/geometry.png")), method: .get) { #expect($0.status.code == 422) }
            try await client.execute(uri: InfoTests.info(fixture.url("msr:0.02", "/geometry.png")), method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test(
        "mrd and --max-result-dimension scale the result down to fit, padding and extend included",
        arguments: [
            ("mrd:50", 50, 25), ("max_result_dimension:150/rs:fit:300:300:1", 150, 75), ("pd:10/rs:fit:50:50/mrd:35", 35, 23),
            ("ex:1/rs:fit:300:300/mrd:150", 150, 150), ("mrd:400", 200, 100), ("mrd:0", 200, 100), ("mrd:1", 1, 1),
        ] as [(String, Int, Int)])
    func resultDimension(options: String, width: Int, height: Int) async throws {
        let fixture = try Self.secured()
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "png"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: width, height: height), "\(options)")
            }
        }
    }

    @Test("msfs raises --max-source-bytes for the URL, as imgproxy's replaces its setting, for an origin's source and a local file")
    func sourceBytesRaised() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-msfs-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let png = ServerFixture.png(width: 200, height: 100)
        try png.write(to: root.appendingPathComponent("geometry.png"))
        let fixture = try Self.secured {
            $0.maxSourceBytes = 100
            $0.localRoot = root.path
        }
        try await fixture.makeServer().makeApplication().test(.live) { client in
            for source in ["\(fixture.origin.baseURL)/geometry.png", "local:///geometry.png"] {
                try await client.execute(uri: ServerFixture.signed("/w:50/plain/\(source)"), method: .get) { #expect($0.status.code == 422, "\(source)") }
                try await client.execute(uri: ServerFixture.signed("/w:50/msfs:\(png.count)/plain/\(source)"), method: .get) { response in
                    #expect(response.status == .ok, "\(source): \(String(buffer: response.body))")
                }
                try await client.execute(uri: ServerFixture.signed("/w:50/msfs:\(png.count - 1)/plain/\(source)"), method: .get) { #expect($0.status.code == 422, "\(source)") }
                try await client.execute(uri: ServerFixture.signed("/w:50/msfs:0/plain/\(source)"), method: .get) {
                    #expect($0.status.code == 422, "msfs:0 keeps --max-source-bytes: \(source)")
                }
            }
        }
    }

    @Test("msfs holds for a source the disk cache kept: 422 past it, without a request to the origin")
    func sourceLimitOnKeptSource() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-msfs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try Self.secured { $0.cacheDirectory = directory }
        try await fixture.makeServer().makeApplication().test(.live) { client in
            try await client.execute(uri: fixture.url("w:50", "/geometry.png"), method: .get) { #expect($0.status == .ok) }
            #expect(fixture.origin.requestCount("/geometry.png") == 1)
            try await client.execute(uri: fixture.url("w:40/msfs:10", "/geometry.png"), method: .get) { response in
                #expect(response.status.code == 422, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains("larger than the server accepts"))
            }
            try await client.execute(uri: fixture.url("w:40/msfs:1000000", "/geometry.png"), method: .get) { #expect($0.status == .ok) }
        }
        #expect(fixture.origin.requestCount("/geometry.png") == 1, "the kept source answered; the origin was not asked again")
    }

    @Test("--max-result-dimension applies to every URL; an allowed mrd replaces it, through the manager too")
    func serverResultDimension() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-mrd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for cache in [nil, directory] {
            let fixture = try Self.fixture {
                $0.maxResultDimension = 60
                $0.cacheDirectory = cache
            }
            try await fixture.makeServer().makeApplication().test(.router) { client in
                for (options, width, height) in [("", 60, 30), ("rs:fit:100:100/pd:10", 60, 35), ("rs:fit:40:40", 40, 20)] {
                    try await client.execute(uri: fixture.url(options, "/geometry.png", ext: "png"), method: .get) { response in
                        #expect(response.status == .ok, "\(String(buffer: response.body))")
                        let result = try ServerFixture.size(of: Data(buffer: response.body))
                        #expect(result == ImageSize(width: width, height: height), "\(options)")
                    }
                }
                try await client.execute(uri: fixture.url("mrd:0", "/geometry.png"), method: .get) { #expect($0.status == .forbidden) }
            }
            try await fixture.with { $0.allowsSecurityOptions = true }.makeServer().makeApplication().test(.router) { client in
                try await client.execute(uri: fixture.url("mrd:0", "/geometry.png", ext: "png"), method: .get) { response in
                    let result = try ServerFixture.size(of: Data(buffer: response.body))
                    #expect(result == ImageSize(width: 200, height: 100))
                }
            }
        }
    }

    @Test("an animation's frames are summed against msr unless mafr limits each frame; maf replaces --max-frames")
    func animationLimits() async throws {
        let coders = ImageServer.defaultCoders()
        // 4 frames of 100×100: 40,000 pixels together.
        let fixture = try Self.secured { $0.maxFrames = 10 }
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("msr:0.04", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let result = try coders.decode(Data(buffer: response.body), options: ImageDecodeOptions()).frameCount
                #expect(result == 4)
            }
            try await client.execute(uri: fixture.url("msr:0.03", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("animation pixels limit"))
            }
            try await client.execute(uri: fixture.url("msr:0.03/mafr:0.01", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: fixture.url("mafr:0.005", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("animation frame pixels limit"))
            }
            try await client.execute(uri: fixture.url("maf:3", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status.code == 422)
                #expect(String(buffer: response.body).contains("animation frames limit"))
            }
            try await client.execute(uri: fixture.url("maf:0", "/anim.gif", ext: "gif"), method: .get) { #expect($0.status == .notFound) }
        }
        // The server's own: one frame by default, which maf raises.
        try await fixture.with({ $0.maxFrames = 1 }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("maf:4", "/anim.gif", ext: "gif"), method: .get) { response in
                let result = try coders.decode(Data(buffer: response.body), options: ImageDecodeOptions()).frameCount
                #expect(result == 4)
            }
        }
        try await fixture.with({
            $0.maxSourcePixels = 30_000
            $0.maxAnimationFramePixels = 10_000
            $0.allowsSecurityOptions = false
        }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("", "/anim.gif", ext: "gif"), method: .get) { response in
                #expect(response.status == .ok, "each frame within --max-animation-frame-resolution: \(String(buffer: response.body))")
            }
        }
        try await fixture.with({ $0.maxSourcePixels = 30_000 }).makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("", "/anim.gif", ext: "gif"), method: .get) { #expect($0.status.code == 422) }
        }
    }

    @Test("a preset may carry security options where they are allowed, and is refused with them where not")
    func presets() async throws {
        let preset = try ProcessingPreset("small=mrd:20")
        #expect(preset.securityOptions == ["mrd"])
        let allowed = try Self.secured { $0.presets = [preset] }
        try await allowed.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: allowed.url("pr:small", "/geometry.png", ext: "png"), method: .get) { response in
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 20, height: 10))
            }
        }
        let refused = try Self.fixture { $0.presets = [preset] }
        try await refused.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: refused.url("pr:small", "/geometry.png"), method: .get) { #expect($0.status == .forbidden) }
        }
    }

    @Test("per-option defaults: the server's, then the default preset, then the URL")
    func optionDefaults() async throws {
        let fixture = try Self.fixture {
            $0.returnsAttachment = true
            $0.autoRotates = false
            $0.skipProcessingFormats = ["png"]
        }
        let original = ServerFixture.png(width: 200, height: 100)
        let rotated = MetadataFixtures.png(ServerFixture.png(width: 40, height: 20), exif: MetadataFixtures.exif(orientation: 6), xmp: nil)
        fixture.origin.serveBytes("/exif.png", rotated, contentType: "image/png")
        try await fixture.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: fixture.url("rs:fill:4:4", "/geometry.png"), method: .get) { response in
                #expect(Data(buffer: response.body) == original, "png sources are answered as they are")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"geometry.png\"")
            }
            try await client.execute(uri: fixture.url("att:0/rs:fill:4:4", "/geometry.png", ext: "png"), method: .get) { response in
                #expect(Data(buffer: response.body) == original, "the output format is the source's: still skipped")
                #expect(response.headers[.contentDisposition] == "inline; filename=\"geometry.png\"")
            }
            try await client.execute(uri: fixture.url("rs:fill:4:4", "/geometry.png", ext: "webp"), method: .get) { response in
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 4, height: 4))
            }
            try await client.execute(uri: fixture.url("", "/exif.png", ext: "webp"), method: .get) { response in
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 40, height: 20), "not turned upright")
            }
            try await client.execute(uri: fixture.url("ar:1", "/exif.png", ext: "webp"), method: .get) { response in
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 20, height: 40))
            }
        }
        let defaults = try ProcessingPreset("default=att:0/ar:1")
        let preset = fixture.with { $0.presets = [defaults] }
        try await preset.makeServer().makeApplication().test(.router) { client in
            try await client.execute(uri: preset.url("", "/exif.png", ext: "webp"), method: .get) { response in
                #expect(response.headers[.contentDisposition] == "inline; filename=\"exif.webp\"", "the default preset wins over the server")
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 20, height: 40))
            }
            try await client.execute(uri: preset.url("att:1/ar:0", "/exif.png", ext: "webp"), method: .get) { response in
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"exif.webp\"", "the URL wins over the default preset")
                let result = try ServerFixture.size(of: Data(buffer: response.body))
                #expect(result == ImageSize(width: 40, height: 20))
            }
        }
    }
}
