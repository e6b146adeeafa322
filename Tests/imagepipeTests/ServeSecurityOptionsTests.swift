import ArgumentParser
import CodersPNG
import Foundation
import ImageServer
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

@testable import imagepipe_serve

#if canImport(Glibc)
import Glibc
#endif

/// `--allow-security-options`, `--max-result-dimension`, `--max-animation-frame-resolution` and
/// the per-option defaults, from flags and imgproxy's variables, and through `serve` itself.
@Suite("imagepipe serve: security options, result limits and per-option defaults")
struct ServeSecurityOptionsTests {
    private func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ImageServerConfiguration {
        try ServeCommand.parse(ServeEnvironment.arguments(["--allow-unsigned"] + arguments, environment: environment)).serverConfiguration()
    }

    private func usageError(_ arguments: [String], _ environment: [String: String] = [:]) -> String {
        do {
            _ = try configuration(arguments, environment)
            return ""
        } catch {
            return ServeCommand.message(for: error)
        }
    }

    @Test("the flags and imgproxy's variables set them; the defaults are imgproxy's")
    func settings() throws {
        let defaults = try configuration([])
        #expect(!defaults.allowsSecurityOptions && defaults.maxResultDimension == 0 && defaults.maxAnimationFramePixels == 0)
        #expect(defaults.stripsMetadata && defaults.keepsCopyright && defaults.stripsColorProfile && defaults.autoRotates)
        #expect(!defaults.enforcesThumbnail && !defaults.preservesHDR && !defaults.returnsAttachment && defaults.skipProcessingFormats.isEmpty)
        let imgproxy = try configuration(
            [],
            [
                "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true", "IMGPROXY_MAX_RESULT_DIMENSION": "2000", "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "2.5",
                "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "0", "IMGPROXY_STRIP_COLOR_PROFILE": "false", "IMGPROXY_AUTO_ROTATE": "false",
                "IMGPROXY_ENFORCE_THUMBNAIL": "true", "IMGPROXY_PRESERVE_HDR": "1", "IMGPROXY_RETURN_ATTACHMENT": "true",
                "IMGPROXY_SKIP_PROCESSING_FORMATS": "svg, jpg",
            ])
        #expect(imgproxy.allowsSecurityOptions && imgproxy.maxResultDimension == 2000 && imgproxy.maxAnimationFramePixels == 2_500_000)
        #expect(!imgproxy.stripsMetadata && !imgproxy.keepsCopyright && !imgproxy.stripsColorProfile && !imgproxy.autoRotates)
        #expect(imgproxy.enforcesThumbnail && imgproxy.preservesHDR && imgproxy.returnsAttachment && imgproxy.skipProcessingFormats == ["svg", "jpeg"])
        let flags = try configuration(
            ["--allow-security-options", "--max-result-dimension", "100", "--strip-metadata", "off", "--return-attachment", "on", "--skip-processing-formats", "gif"],
            ["IMGPROXY_MAX_RESULT_DIMENSION": "2000", "IMAGEPIPE_RETURN_ATTACHMENT": "off"])
        #expect(flags.allowsSecurityOptions && flags.maxResultDimension == 100 && !flags.stripsMetadata && flags.returnsAttachment)
        #expect(flags.skipProcessingFormats == ["gif"])
        #expect(ServeEnvironment.ignoredImgproxyVariables(["IMGPROXY_ALLOW_SECURITY_OPTIONS": "1", "IMGPROXY_STRIP_METADATA": "0", "IMGPROXY_MAX_RESULT_DIMENSION": "9"]).isEmpty)
    }

    @Test("bad values are usage errors naming the setting; a preset with a security option needs --allow-security-options")
    func refusals() throws {
        #expect(usageError(["--max-result-dimension=-1"]).contains("--max-result-dimension must be a whole number from 0"))
        #expect(usageError([], ["IMGPROXY_STRIP_METADATA": "perhaps"]).contains("IMGPROXY_STRIP_METADATA 'perhaps' is not a value --strip-metadata takes"))
        #expect(usageError(["--skip-processing-formats", "PNG"]).contains("--skip-processing-formats 'PNG' is not a format name"))
        #expect(usageError(["--max-animation-frame-resolution=-2"]).contains("--max-animation-frame-resolution must be a number of megapixels"))
        #expect(usageError(["--preset", "small=rs:fit:10:10/mrd:20"]).contains("--preset small sets mrd, a security option: give --allow-security-options"))
        #expect(usageError(["--preset", "small=msr:abc", "--allow-security-options"]).contains("--preset: preset small: msr:"))
        #expect(try configuration(["--preset", "small=mrd:20", "--allow-security-options"]).presets.map(\.name) == ["small"])
    }

    @Test("serve with imgproxy's variables: the result scaled to fit, mrd answered or refused, attachment by default")
    func throughServe() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let png = try PNGCoder().encode(
            Image(try PixelBuffer(width: 200, height: 100, format: .rgb8, fill: ImageColor(red: 10, green: 20, blue: 30)), format: .png), as: .png,
            options: ImageEncodeOptions())
        origin.serveBytes("/g.png", png, contentType: "image/png")
        let environment = ["IMGPROXY_MAX_RESULT_DIMENSION": "60", "IMGPROXY_RETURN_ATTACHMENT": "true"]
        for allowed in [false, true] {
            let server = try ServeProcess(
                ["--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet"],
                environment: environment.merging(allowed ? ["IMGPROXY_ALLOW_SECURITY_OPTIONS": "1"] : [:]) { $1 })
            let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
            func get(_ options: String) async throws -> (status: Int, headers: String, size: (Int, Int)?) {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-mrd-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: file) }
                let headers = try await runBlocking {
                    String(
                        decoding: try TestProcesses.run(
                            "/usr/bin/curl", ["-s", "-D", "-", "-o", file.path, "http://127.0.0.1:\(port)/insecure/\(options)plain/\(origin.baseURL)/g.png@png"]),
                        as: UTF8.self)
                }
                let status = Int(headers.split(separator: " ").dropFirst().first ?? "") ?? 0
                let body = (try? Data(contentsOf: file)) ?? Data()
                // A PNG's IHDR: width and height, big-endian, at bytes 16 and 20.
                let size = body.count > 24 && status == 200 ? (body[16..<20].reduce(0) { $0 << 8 | Int($1) }, body[20..<24].reduce(0) { $0 << 8 | Int($1) }) : nil
                return (status, headers.lowercased(), size)
            }
            let plain = try await get("")
            #expect(plain.status == 200 && plain.size.map { $0 == (60, 30) } == true, "\(plain.headers)")
            #expect(plain.headers.contains("content-disposition: attachment; filename=\"g.png\""), "\(plain.headers)")
            let inline = try await get("att:0/")
            #expect(inline.headers.contains("content-disposition: inline"), "\(inline.headers)")
            let unlimited = try await get("mrd:0/")
            if allowed {
                #expect(unlimited.status == 200 && unlimited.size.map { $0 == (200, 100) } == true, "\(unlimited.headers)")
            } else {
                #expect(unlimited.status == 403, "\(unlimited.headers)")
            }
            server.signal(SIGINT)
            #expect(try await server.exitStatus() == 0)
            #expect(!server.stderr.contains("ignored: IMGPROXY"), "\(server.stderr)")
        }
    }
}
