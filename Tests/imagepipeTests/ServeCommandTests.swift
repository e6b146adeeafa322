import CodersPNG
import Foundation
import ImageServer
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import imagepipe_serve

#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve` as a process: started, read for its ready line, signalled, waited for.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let output = Mutex("")
    private let errors = Mutex("")

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = CLIRunner.binary
        process.arguments = ["serve"] + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IMAGEPIPE_") && !$0.key.hasPrefix("IMGPROXY_") }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Thread { [self] in
            while true {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { return }
                self.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
        Thread { [self] in
            while true {
                let data = err.fileHandleForReading.availableData
                if data.isEmpty { return }
                self.errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    var stdout: String { output.withLock { $0 } }
    var stderr: String { errors.withLock { $0 } }

    /// The port from the ready line, once printed.
    func port() async -> Int? {
        _ = await eventually(timeout: .seconds(60)) { self.stdout.contains("\n") || !self.process.isRunning }
        guard let line = stdout.split(separator: "\n").first, line.hasPrefix("imagepipe serve: listening on http://127.0.0.1:") else { return nil }
        return Int(line.split(separator: ":").last ?? "")
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    func exitStatus() async throws -> Int32 {
        try await runBlocking { [process] in
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}

@Suite("imagepipe serve")
struct ServeCommandTests {
    @Test("--log-format json writes one JSON object per line: the access log's fields, the request id sent back")
    func jsonAccessLog() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned"], environment: ["IMAGEPIPE_LOG_FORMAT": "json"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let headers = try await runBlocking {
            try TestProcesses.run(
                "/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "-A", "tester/1.0", "-H", "X-Request-ID: edge-7", "http://127.0.0.1:\(port)/insecure/rs:fit:4:4/aGVsbG8"])
        }
        #expect(String(decoding: headers, as: UTF8.self).lowercased().contains("x-request-id: edge-7"))
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        let lines = server.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let access = try #require(lines.first { $0["request_id"] as? String == "edge-7" }, "\(server.stderr)")
        #expect(access["method"] as? String == "GET")
        #expect(access["path"] as? String == "/*/rs:fit:4:4/aGVsbG8", "the signature segment is never logged")
        #expect(access["status"] as? Int == 404)
        #expect((access["bytes"] as? Int).map { $0 > 0 } == true)
        #expect(access["duration_ms"] is Double || access["duration_ms"] is Int)
        #expect(access["level"] as? String == "info")
        #expect((access["time"] as? String)?.hasSuffix("Z") == true)
        #expect(access["message"] as? String == "GET /*/rs:fit:4:4/aGVsbG8 404")
        #expect(access["client"] as? String == "127.0.0.1")
        #expect(access["user_agent"] as? String == "tester/1.0")
        #expect(access["image_url"] as? String == "hello", "the source decoded from base64")
        #expect((access["reason"] as? String)?.isEmpty == false, "an error answer says why")
        #expect(lines.count == server.stderr.split(separator: "\n").count, "every line is JSON: \(server.stderr)")
    }

    @Test("the text access log has millisecond UTC times, the client and the decoded source")
    func textAccessLog() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        _ = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/insecure/rs:fit:4:4/aGVsbG8"]) }
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        let line = try #require(server.stderr.split(separator: "\n").first { $0.contains("GET /*/rs:fit:4:4/aGVsbG8 404") }, "\(server.stderr)")
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info imagepipe\.serve: .* \[ImageServer\] GET .*/) != nil, "\(line)")
        #expect(line.contains("client=127.0.0.1") && line.contains("image_url=hello"), "\(line)")
    }

    @Test("a loopback origin is 404 to the client; the operator's log names the guard and --allow-private-sources")
    func guardNamedInLog() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let server = try ServeProcess(["--port", "0", "--allow-unsigned"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let body = try await runBlocking {
            String(decoding: try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/insecure/w:8/plain/\(origin.baseURL)/a.png"]), as: UTF8.self)
        }
        #expect(body == "the source address is not allowed\n", "the client learns nothing of the guard")
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        #expect(server.stderr.contains("SSRF guard") && server.stderr.contains("--allow-private-sources"), "\(server.stderr)")
    }

    @Test("it logs the effective configuration once at start, keys not shown, and no second 'started' line")
    func effectiveConfiguration() async throws {
        let server = try ServeProcess(["--port", "0", "--key", "a1b2c3d4e5", "--salt", "f6e7d8c9", "--workers", "3", "--secret", "s3cr3t-token"])
        _ = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        let lines = server.stderr.split(separator: "\n")
        let configuration = try #require(lines.first { $0.hasSuffix("] configuration") }, "\(server.stderr)")
        #expect(configuration.contains("workers=3") && configuration.contains("signingKeys=1 (not shown)"), "\(configuration)")
        #expect(!server.stderr.contains("a1b2c3d4e5") && !server.stderr.contains("f6e7d8c9") && !server.stderr.contains("s3cr3t-token"))
        #expect(configuration.contains("secret=set (not shown)"), "\(configuration)")
        #expect(!server.stderr.contains("Server started"), "Hummingbird's own line repeats the ready line: \(server.stderr)")
    }

    @Test("it prints one ready line with the address, takes flags from IMAGEPIPE_ variables, and answers /health")
    func readyLineAndEnvironment() async throws {
        let server = try ServeProcess([], environment: ["IMAGEPIPE_PORT": "0", "IMAGEPIPE_ALLOW_UNSIGNED": "1", "IMAGEPIPE_QUIET": "1"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let health = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/health"]) }
        #expect(String(decoding: health, as: UTF8.self) == "ok\n")
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        #expect(server.stdout == "imagepipe serve: listening on http://127.0.0.1:\(port)\n")
    }

    @Test(
        "without keys it refuses to start unless unsigned URLs are allowed; bad flags are usage errors",
        arguments: [
            ([String](), "give --key and --salt"),
            (["--key", "abcd"], "give one --salt for each --key"),
            (["--key", "xyz", "--salt", "00"], "--key and --salt must be non-empty hex strings: --key has 'x', which is not a hex digit (0-9, a-f)"),
            (["--key", "abc", "--salt", "00"], "--key and --salt must be non-empty hex strings: --key has 3 hex digits, an odd number: two make one byte"),
            (["--key", "abcd", "--salt", ""], "--key and --salt must be non-empty hex strings: --salt is empty"),
            (["--allow-unsigned", "--quiet", "-v"], "--quiet and --verbose cannot be used together"),
            (["--allow-unsigned", "--allow-source", "example.com"], "--allow-source 'example.com' must be an http(s) URL prefix"),
            (["--allow-unsigned", "--cache-dir", "/tmp/x", "--no-cache"], "--cache-dir and --no-cache cannot be used together"),
            (["--allow-unsigned", "--workers", "0"], "--workers must be a whole number from 1 to 1024"),
            (["--allow-unsigned", "--local-root", "/nonexistent/folder"], "--local-root '/nonexistent/folder' is not a folder"),
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let run = try await CLIRunner(cacheHome: FileManager.default.temporaryDirectory).run(["serve"] + arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("a port that is taken fails with exit status 1 and a reason")
    func portTaken() async throws {
        let origin = try TestHTTPServer()
        let run = try await CLIRunner(cacheHome: FileManager.default.temporaryDirectory)
            .run(["serve", "--allow-unsigned", "--port", "\(origin.port)", "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("imagepipe: serve: could not start: 127.0.0.1 port \(origin.port) is already in use"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("serve takes -v, as every command does, and logs the pipeline's debug lines")
    func verbose() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "-v"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        _ = try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/insecure/w:8/plain/http://127.0.0.1:1/a.png"]) }
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
        #expect(server.stderr.contains(" debug "), "\(server.stderr)")
    }

    @Test("the command serves with the tool's coders: AVIF when Accept names it, before WebP, the source's format otherwise")
    func negotiatesAVIF() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let image = try PNGCoder().encode(Image(try PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
        try image.write(to: root.appendingPathComponent("a.png"))
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--local-root", root.path, "--quiet"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        func contentType(accept: String) async throws -> String {
            let output = try await runBlocking {
                try TestProcesses.run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{content_type}", "-H", "Accept: \(accept)",
                        "http://127.0.0.1:\(port)/insecure/w:4/plain/local:///a.png",
                    ])
            }
            return String(decoding: output, as: UTF8.self)
        }
        #expect(try await contentType(accept: "image/avif,image/*") == "image/avif")
        #expect(try await contentType(accept: "image/avif,image/webp") == "image/avif")
        #expect(try await contentType(accept: "image/webp,image/*") == "image/webp")
        #expect(try await contentType(accept: "*/*") == "image/png")
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    @Test(
        "eth:1 answers from the thumbnail embedded in a HEIC source, as imgproxy's does; without it, from the image",
        .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func enforcedThumbnail() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-serve-eth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try HEIFFixtures.withThumbnail.data().write(to: root.appendingPathComponent("a.heic"))
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--local-root", root.path, "--quiet"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        func size(_ options: String) async throws -> ImageSize {
            let output = try await runBlocking {
                try TestProcesses.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/insecure/\(options)/plain/local:///a.heic@png"])
            }
            return try PNGCoder().decode(output, options: ImageDecodeOptions()).pixelSize
        }
        #expect(try await size("eth:1") == ImageSize(width: 320, height: 240))
        #expect(try await size("eth:0") == ImageSize(width: 640, height: 480))
        #expect(try await size("enforce_thumbnail:1/w:100") == ImageSize(width: 100, height: 75))
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    @Test("--watermark URL: fetched once when the server starts, then drawn by wm:")
    func watermarkFromURL() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let white = try PNGCoder().encode(Image(try PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
        try white.write(to: root.appendingPathComponent("a.png"))
        let assets = try TestHTTPServer()
        let blue = ImageColor(red: 0, green: 0, blue: 255)
        assets.serveBytes("/mark.png", try PNGCoder().encode(Image(try PixelBuffer(width: 4, height: 4, format: .rgba8, fill: blue), format: .png), as: .png, options: ImageEncodeOptions()))
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--local-root", root.path, "--quiet", "--watermark", assets.baseURL + "/mark.png"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let output = root.appendingPathComponent("out.png")
        _ = try await runBlocking {
            try TestProcesses.run("/usr/bin/curl", ["-s", "-o", output.path, "http://127.0.0.1:\(port)/insecure/wm:1:nowe/plain/local:///a.png@png"])
        }
        let image = try PNGCoder().decode(try Data(contentsOf: output), options: ImageDecodeOptions()).firstFrame
        #expect(image.color(x: 0, y: 0) == blue)
        #expect(image.color(x: 7, y: 7) == .white)
        #expect(assets.requestCount("/mark.png") == 1)
        server.signal(SIGTERM)
        #expect(try await server.exitStatus() == 0)
    }

    @Test("SIGTERM with 20 requests in flight: all 20 complete, then the process exits 0")
    func drainOnSIGTERM() async throws {
        let origin = try TestHTTPServer()
        let image = try PNGCoder().encode(Image(try PixelBuffer(width: 8, height: 8, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
        let released = Mutex(false)
        for index in 0..<20 {
            origin.route("/held\(index).png") { _, connection in
                while !released.withLock({ $0 }) { usleep(5_000) }
                connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: image)
            }
        }
        // Deadlines no loaded machine reaches: the test is of the drain, not of them.
        let server = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--allow-private-sources", "--workers", "20", "--quiet", "--request-timeout", "300",
            "--shutdown-timeout", "300",
        ])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let statuses = Mutex<[Int]>([])
        let finished = Mutex(0)
        for index in 0..<20 {
            Thread {
                let output = try? TestProcesses.run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}",
                        "http://127.0.0.1:\(port)/insecure/w:4/plain/\(origin.baseURL)/held\(index).png@png",
                    ])
                statuses.withLock { $0.append(Int(String(decoding: output ?? Data(), as: UTF8.self)) ?? 0) }
                finished.withLock { $0 += 1 }
            }.start()
        }
        #expect(await eventually(timeout: .seconds(60)) { (0..<20).allSatisfy { origin.requestCount("/held\($0).png") == 1 } })
        server.signal(SIGTERM)
        // The listener closes first; the 20 connections stay until answered.
        #expect(await eventually(timeout: .seconds(60)) { !Self.accepts(port: port) })
        released.withLock { $0 = true }
        #expect(await eventually(timeout: .seconds(60)) { finished.withLock { $0 } == 20 })
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 20))
        #expect(try await server.exitStatus() == 0)
    }

    @Test("--drain-delay: after SIGTERM /health answers 503 while connections are still accepted, then the listener closes")
    func drainDelay() async throws {
        let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--drain-delay", "3"])
        let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        let health = { @Sendable () async throws -> String in
            try await runBlocking { String(decoding: try TestProcesses.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/health"]), as: UTF8.self) }
        }
        #expect(try await health() == "200")
        // Signalled, polled and timed on a thread of its own: a poll queued behind other suites'
        // work would find the listener already closed.
        let (signalled, draining) = try await runBlocking { () -> (ContinuousClock.Instant, (after: Duration, accepting: Bool)?) in
            let signalled = ContinuousClock.now
            server.signal(SIGTERM)
            while ContinuousClock.now - signalled < .seconds(60) {
                let status = String(
                    decoding: (try? TestProcesses.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/health"])) ?? Data(),
                    as: UTF8.self)
                if status == "503" { return (signalled, (ContinuousClock.now - signalled, Self.accepts(port: port))) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return (signalled, nil)
        }
        let answer = try #require(draining, "/health never answered 503")
        // The 503 came while the listener was open, and it stays open for the delay.
        #expect(answer.after < .seconds(3) || answer.accepting, "\(answer)")
        #expect(await eventually(timeout: .seconds(60)) { !Self.accepts(port: port) })
        #expect(ContinuousClock.now - signalled >= .seconds(3), "the listener closed before --drain-delay")
        #expect(try await server.exitStatus() == 0)
        #expect(server.stderr.contains("draining: /health answers 503"), "\(server.stderr)")
        #expect(server.stderr.contains("stopped: every request in flight was answered"), "\(server.stderr)")
    }

    /// Whether something accepts a new connection on `port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

@Suite("imagepipe serve: flags and IMAGEPIPE_ variables")
struct ServeSettingsTests {
    func configuration(_ arguments: [String], _ environment: [String: String]) throws -> ImageServerConfiguration {
        try ServeCommand.parse(ServeEnvironment.arguments(arguments, environment: environment)).serverConfiguration()
    }

    @Test("byte counts take units, in flags and variables: 512MiB, 2GB, 1.5GiB, 64k")
    func byteUnits() throws {
        let settings = try configuration(
            ["--allow-unsigned", "--memory-limit", "512MiB", "--max-source-bytes", "2GB", "--max-url-length", "64k"],
            ["IMAGEPIPE_MAX_WORKING_MEMORY": "1.5 GiB"])
        #expect(settings.memoryLimit == 512 << 20)
        #expect(settings.maxSourceBytes == 2_000_000_000)
        #expect(settings.maxURLLength == 64_000)
        #expect(settings.maxWorkingMemory == 3 << 29)
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned", "--memory-limit", "12 furlongs"], [:]) }
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned", "--memory-limit", "-5"], [:]) }
    }

    @Test("a variable sets what no flag gives; a flag wins over its variable; lists are comma-separated")
    func precedence() throws {
        let environment = [
            "IMAGEPIPE_PORT": "9000", "IMAGEPIPE_KEY": "aa01,aa02", "IMAGEPIPE_SALT": "bb01, bb02",
            "IMAGEPIPE_ALLOW_SOURCE": "https://a.example/,https://b.example/", "IMAGEPIPE_WORKERS": "3",
            "IMAGEPIPE_MAX_FRAMES": "5", "IMAGEPIPE_REQUEST_TIMEOUT": "4", "IMAGEPIPE_NO_CACHE": "true",
        ]
        // `parse` validates against this process's own environment, which holds no keys.
        let fromEnvironment = try configuration(["--allow-unsigned"], environment)
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.signingKeys.count == 2)
        #expect(fromEnvironment.allowedSources.map(\.description) == ["https://a.example/", "https://b.example/"])
        #expect(fromEnvironment.workers == 3)
        #expect(fromEnvironment.maxFrames == 5)
        #expect(fromEnvironment.requestTimeout == .seconds(4))
        #expect(fromEnvironment.memoryLimit == 0)
        #expect(!fromEnvironment.allowsPrivateSources)
        let flagsWin = try configuration(["--port", "9100", "--key", "cc", "--salt", "dd", "--workers", "1"], environment)
        #expect(flagsWin.port == 9100)
        #expect(flagsWin.signingKeys.count == 1)
        #expect(flagsWin.workers == 1)
    }

    @Test("defaults: loopback on 8080, a year of max-age, one frame, memory cache only, SSRF guard on")
    func defaults() throws {
        let settings = try configuration(["--allow-unsigned"], [:])
        #expect(settings.host == "127.0.0.1" && settings.port == 8080)
        #expect(settings.cacheTTL == 31_536_000)
        #expect(settings.maxFrames == 1)
        #expect(settings.cacheDirectory == nil && settings.memoryLimit > 0)
        #expect(!settings.allowsPrivateSources && settings.localRoot == nil)
    }

    @Test("--preset NAME=OPTIONS (repeatable, or IMAGEPIPE_PRESET) and --only-presets; a bad preset stops the start")
    func presets() throws {
        let settings = try configuration(["--allow-unsigned", "--preset", "thumb=rs:fill:100:100/q:70", "--only-presets"], ["IMAGEPIPE_PRESET": "x=bl:1"])
        #expect(settings.presets.map(\.description) == ["thumb=rs:fill:100:100/q:70"])
        #expect(settings.onlyPresets)
        #expect(try configuration(["--allow-unsigned"], ["IMAGEPIPE_PRESET": "a=w:1,default=q:50"]).presets.map(\.name) == ["a", "default"])
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned", "--preset", "thumb=q:500"], [:]) }
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned", "--only-presets"], [:]) }
    }

    @Test("imgproxy's settings: its names as aliases, qualities, negotiation, secret, CORS, signatures, base URL")
    func imgproxySettings() throws {
        let settings = try configuration(
            [
                "--allow-unsigned", "--max-src-resolution", "2.5", "--max-src-file-size", "1000", "--max-animation-frames", "3",
                "--requests-queue-size", "7", "--timeout", "9", "--max-clients", "11", "--keep-alive-timeout", "12",
                "--quality", "70", "--format-quality", "jpeg=60,webp=50", "--auto-webp", "off", "--enforce-avif", "true",
                "--secret", "abc", "--allow-origin", "*", "--signature-size", "8", "--trusted-signatures", "s1,s2",
                "--allowed-processing-options", "w,h", "--allowed-processing-options", "pr", "--base-url", "https://cdn.example/",
                "--allowed-sources", "https://*.example.com/,https://b.example/",
            ],
            ["IMAGEPIPE_PRESETS": "a=w:1,b=h:2"])
        #expect(settings.maxSourcePixels == 2_500_000)
        #expect(settings.maxSourceBytes == 1000 && settings.maxFrames == 3 && settings.queueSize == 7)
        #expect(settings.requestTimeout == .seconds(9) && settings.maxConnections == 11 && settings.idleTimeout == .seconds(12))
        #expect(settings.defaultQuality == 70)
        #expect(settings.formatQuality == ImageServerConfiguration.perceivedQualityDefaults.merging(["jpeg": 60, "webp": 50]) { $1 })
        #expect(!settings.autoWebP && settings.autoAVIF && settings.enforceAVIF && !settings.enforceWebP)
        #expect(settings.secret == "abc" && settings.allowOrigin == "*" && settings.signatureSize == 8)
        #expect(settings.trustedSignatures == ["s1", "s2"] && settings.allowedProcessingOptions == ["w", "h", "pr"])
        #expect(settings.baseURL == "https://cdn.example/")
        #expect(settings.allowedSources.map(\.description) == ["https://*.example.com/", "https://b.example/"])
        #expect(settings.presets.map(\.name) == ["a", "b"])
        #expect(try configuration(["--allow-unsigned"], ["IMAGEPIPE_AUTO_WEBP": "false", "IMAGEPIPE_QUALITY": "50"]).autoWebP == false)
        for bad in [
            ["--max-source-bytes", "10", "--max-src-file-size", "20"], ["--quality", "0"], ["--format-quality", "jpeg:80"],
            ["--format-quality", "nope=80"], ["--signature-size", "33"], ["--auto-webp", "maybe"], ["--secret", "a b"],
            ["--fallback-image-status", "99"], ["--watermark", "/nonexistent.png"], ["--watermark-opacity", "0"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try configuration(["--allow-unsigned"] + bad, [:]) }
        }
    }

    @Test("--watermark and --fallback-image read an image file (or IMAGEPIPE_WATERMARK_PATH, imgproxy's name)")
    func imageSettings() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-mark-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try PNGCoder().encode(Image(try PixelBuffer(width: 6, height: 4, format: .rgb8, fill: .white), format: .png), as: .png, options: ImageEncodeOptions())
            .write(to: file)
        let settings = try configuration(
            ["--allow-unsigned", "--watermark-opacity", "0.5", "--fallback-image", file.path, "--fallback-image-status", "0"],
            ["IMAGEPIPE_WATERMARK_PATH": file.path])
        #expect(settings.watermark?.pixelSize == ImageSize(width: 6, height: 4))
        #expect(settings.watermarkOpacity == 0.5)
        #expect(settings.fallbackImage?.pixelSize == ImageSize(width: 6, height: 4) && settings.fallbackImageStatus == 0)
        let base64 = try Data(contentsOf: file).base64EncodedString()
        #expect(try configuration(["--allow-unsigned", "--watermark-data", base64], [:]).watermark?.pixelSize == ImageSize(width: 6, height: 4))
        let command = try ServeCommand.parse(["--allow-unsigned", "--watermark", "https://assets.example/mark.png", "--fallback-image-url", "http://assets.example/x.png"])
        #expect(try command.watermarkSetting() == .remote(URL(string: "https://assets.example/mark.png")!))
        #expect(try command.fallbackImageSetting() == .remote(URL(string: "http://assets.example/x.png")!))
        #expect(try command.serverConfiguration().watermark == nil, "a URL is fetched when the server starts, not when flags are checked")
        for bad in [["--watermark", file.path, "--watermark-path", file.path], ["--watermark-data", "%%%"], ["--fallback-image-url", "ftp://x/a.png"]] {
            #expect(throws: (any Error).self, "\(bad)") { try configuration(["--allow-unsigned"] + bad, [:]) }
        }
        let notImage = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-mark-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: notImage) }
        try Data("hello".utf8).write(to: notImage)
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned", "--watermark", notImage.path], [:]) }
    }

    @Test("a variable that is not a number is a usage error naming it")
    func badVariable() {
        #expect(throws: (any Error).self) { try configuration(["--allow-unsigned"], ["IMAGEPIPE_QUEUE": "many"]) }
    }
}

@Suite("imagepipe serve: one line per setting")
struct ServeEnvironmentTests {
    @Test("every property of the command is a row of the settings table, and every row a flag of serve")
    func everySettingIsAFlag() throws {
        let help = ServeCommand.helpMessage(columns: 400)
        #expect(ServeSettings.all.count >= 30)
        for setting in ServeSettings.all {
            #expect(["--\(setting.flag) ", "--\(setting.flag)\n", "--\(setting.flag),"].contains { help.contains($0) }, "--\(setting.flag) is not a flag of serve")
        }
        let properties = Mirror(reflecting: try ServeCommand.parse(["--allow-unsigned"])).children.compactMap(\.label)
        #expect(properties.count == ServeSettings.all.count, "a property of ServeCommand without a row in ServeSettings, or the reverse")
    }

    @Test("help shows the real defaults, from ImageServerConfiguration")
    func helpShowsDefaults() {
        let help = ServeCommand.helpMessage(columns: 400)
        let defaults = ImageServerConfiguration()
        #expect(help.contains("(default: \(defaults.port))"))
        #expect(help.contains("(default: \(defaults.maxSourcePixels))"))
        #expect(help.contains("(default: \(Int(defaults.requestTimeout.components.seconds)))"))
    }
}
