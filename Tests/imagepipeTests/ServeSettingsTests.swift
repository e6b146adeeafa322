import ArgumentParser
import Foundation
import ImageServer
import Testing

@testable import imagepipe_serve

#if canImport(Glibc)
import Glibc
#endif

/// The configuration `serve` would run with for these arguments and this environment.
private func configuration(_ arguments: [String], _ environment: [String: String]) throws -> ImageServerConfiguration {
    try command(arguments, environment).serverConfiguration()
}

private func command(_ arguments: [String], _ environment: [String: String]) throws -> ServeCommand {
    try ServeCommand.parse(ServeEnvironment.arguments(arguments, environment: environment))
}

/// The usage error these arguments and this environment give.
private func usageError(_ arguments: [String], _ environment: [String: String]) -> String {
    do {
        _ = try configuration(arguments, environment)
        return ""
    } catch {
        return ServeCommand.message(for: error)
    }
}

@Suite("imagepipe serve: imgproxy's IMGPROXY_ variables")
struct ImgproxyVariablesTests {
    @Test("a flag wins over IMAGEPIPE_, which wins over IMGPROXY_; IMGPROXY_ sets what neither gives")
    func precedence() throws {
        let all = ["IMGPROXY_WORKERS": "5", "IMAGEPIPE_WORKERS": "3", "IMGPROXY_TTL": "60"]
        #expect(try configuration(["--allow-unsigned", "--workers", "2"], all).workers == 2)
        #expect(try configuration(["--allow-unsigned"], all).workers == 3)
        #expect(try configuration(["--allow-unsigned"], ["IMGPROXY_WORKERS": "5"]).workers == 5)
        #expect(try configuration(["--allow-unsigned"], all).cacheTTL == 60)
        // A setting's other form counts as the setting: imgproxy's megapixels lose to either of ours.
        let pixels = ["IMGPROXY_MAX_SRC_RESOLUTION": "2", "IMAGEPIPE_MAX_SRC_RESOLUTION": "3"]
        #expect(try configuration(["--allow-unsigned"], pixels).maxSourcePixels == 3_000_000)
        #expect(try configuration(["--allow-unsigned"], ["IMGPROXY_MAX_SRC_RESOLUTION": "2", "IMAGEPIPE_MAX_SOURCE_PIXELS": "100"]).maxSourcePixels == 100)
        #expect(try configuration(["--allow-unsigned", "--max-source-pixels", "100"], pixels).maxSourcePixels == 100)
        #expect(try configuration(["--allow-unsigned", "--max-src-resolution", "1"], ["IMAGEPIPE_MAX_SOURCE_PIXELS": "7"]).maxSourcePixels == 1_000_000)
        // Aliases are one setting: a flag under imgproxy's name beats our variable.
        #expect(try configuration(["--allow-unsigned", "--timeout", "7"], ["IMAGEPIPE_REQUEST_TIMEOUT": "4"]).requestTimeout == .seconds(7))
        // Per setting: the key from IMAGEPIPE_, the salt from IMGPROXY_.
        #expect(try configuration([], ["IMAGEPIPE_KEY": "aa01", "IMGPROXY_KEY": "ff,ee", "IMGPROXY_SALT": "bb01"]).signingKeys.count == 1)
    }

    @Test("IMGPROXY_KEY and IMGPROXY_SALT take comma-separated lists, for key rotation")
    func keyRotation() throws {
        let settings = try configuration([], ["IMGPROXY_KEY": "aa01,aa02", "IMGPROXY_SALT": "bb01, bb02"])
        #expect(settings.signingKeys.count == 2)
        #expect(usageError([], ["IMGPROXY_KEY": "aa01,aa02", "IMGPROXY_SALT": "bb01"]).contains("give one --salt for each --key (2 keys, 1 salts)"))
        #expect(usageError([], ["IMGPROXY_KEY": "xyz", "IMGPROXY_SALT": "00"]).contains("--key has 'x', which is not a hex digit"))
    }

    @Test("IMGPROXY_MAX_SRC_RESOLUTION is megapixels, a decimal number, converted to pixels")
    func megapixels() throws {
        #expect(try configuration(["--allow-unsigned"], ["IMGPROXY_MAX_SRC_RESOLUTION": "2.5"]).maxSourcePixels == 2_500_000)
        #expect(try configuration(["--allow-unsigned"], ["IMGPROXY_MAX_SRC_RESOLUTION": "0.01"]).maxSourcePixels == 10_000)
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_MAX_SRC_RESOLUTION": "lots"]).contains("IMGPROXY_MAX_SRC_RESOLUTION 'lots' must be a number of megapixels"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_MAX_SRC_RESOLUTION": "0"]).contains("IMGPROXY_MAX_SRC_RESOLUTION"))
    }

    @Test("IMGPROXY_BIND and IMGPROXY_PROMETHEUS_BIND are HOST:PORT; :PORT listens on every address")
    func bind() throws {
        let anyAddress = try configuration(["--allow-unsigned"], ["IMGPROXY_BIND": ":9090"])
        #expect(anyAddress.host == "0.0.0.0" && anyAddress.port == 9090)
        let loopback = try configuration(["--allow-unsigned"], ["IMGPROXY_BIND": "127.0.0.2:81", "IMGPROXY_PROMETHEUS_BIND": "[::1]:9464"])
        #expect(loopback.host == "127.0.0.2" && loopback.port == 81)
        #expect(loopback.metricsHost == "::1" && loopback.metricsPort == 9464)
        let overridden = try configuration(["--allow-unsigned", "--port", "7000"], ["IMGPROXY_BIND": "10.0.0.1:81", "IMAGEPIPE_HOST": "127.0.0.1"])
        #expect(overridden.host == "127.0.0.1" && overridden.port == 7000)
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_BIND": "/run/imgproxy.sock"]).contains("IMGPROXY_BIND '/run/imgproxy.sock' must be HOST:PORT"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_BIND": ":http"]).contains("IMGPROXY_BIND 'http' is not a value --port takes"))
    }

    @Test("IMGPROXY_FORMAT_QUALITY is webp=79,avif=63: the formats it names replace the defaults; IMGPROXY_QUALITY is JPEG's")
    func formatQuality() throws {
        let defaults = ImageServerConfiguration.perceivedQualityDefaults
        #expect(defaults == ["jpeg": 65, "webp": 82, "avif": 63, "jxl": 72])
        let plain = try configuration(["--allow-unsigned"], [:])
        #expect(plain.formatQuality == defaults && plain.defaultQuality == 80)
        let settings = try configuration(["--allow-unsigned"], ["IMGPROXY_FORMAT_QUALITY": "webp=70,avif=40", "IMGPROXY_QUALITY": "75"])
        #expect(settings.formatQuality == ["webp": 70, "avif": 40, "jxl": defaults["jxl"]], "a given quality is JPEG's")
        #expect(settings.defaultQuality == 75)
        let jpeg = try configuration(["--allow-unsigned", "--quality", "90", "--format-quality", "jpeg=50"], [:])
        #expect(jpeg.formatQuality["jpeg"] == 50 && jpeg.defaultQuality == 90, "--format-quality's jpeg over --quality")
        #expect(usageError(["--allow-unsigned", "--quality", "0"], [:]).contains("--quality must be a whole number from 1 to 100"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_FORMAT_QUALITY": "webp:70"]).contains("--format-quality 'webp:70' must be FORMAT=QUALITY"))
    }

    @Test("IMGPROXY_PRESETS is comma-separated NAME=OPTIONS, or divided by IMGPROXY_PRESETS_SEPARATOR")
    func presets() throws {
        let settings = try configuration(["--allow-unsigned"], ["IMGPROXY_PRESETS": "default=q:50,thumb=rs:fill:100:100", "IMGPROXY_ONLY_PRESETS": "true"])
        #expect(settings.presets.map(\.name) == ["default", "thumb"])
        #expect(settings.onlyPresets)
        let separated = try configuration(["--allow-unsigned"], ["IMGPROXY_PRESETS": "a=w:1;b=h:2", "IMGPROXY_PRESETS_SEPARATOR": ";"])
        #expect(separated.presets.map(\.name) == ["a", "b"])
        #expect(try !configuration(["--allow-unsigned"], ["IMGPROXY_PRESETS": "a=w:1", "IMGPROXY_ONLY_PRESETS": "false"]).onlyPresets)
    }

    @Test("imgproxy's 0 for no limit is the largest value the flag takes; a 0 fallback TTL is --ttl's")
    func zeroMeansNoLimit() throws {
        let unlimited = try configuration(
            ["--allow-unsigned"],
            ["IMGPROXY_MAX_SRC_FILE_SIZE": "0", "IMGPROXY_REQUESTS_QUEUE_SIZE": "0", "IMGPROXY_MAX_CLIENTS": "0", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "0", "IMGPROXY_FALLBACK_IMAGE_TTL": "0"])
        #expect(unlimited.maxSourceBytes == 1 << 40 && unlimited.queueSize == 1_000_000 && unlimited.maxConnections == 1_000_000)
        #expect(unlimited.idleTimeout == .seconds(1), "no keep-alive: an idle connection closes at once")
        #expect(unlimited.fallbackImageTTL == nil)
        let limited = try configuration(
            ["--allow-unsigned"],
            ["IMGPROXY_MAX_SRC_FILE_SIZE": "1000", "IMGPROXY_REQUESTS_QUEUE_SIZE": "5", "IMGPROXY_MAX_CLIENTS": "20", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "30", "IMGPROXY_FALLBACK_IMAGE_TTL": "60"])
        #expect(limited.maxSourceBytes == 1000 && limited.queueSize == 5 && limited.maxConnections == 20)
        #expect(limited.idleTimeout == .seconds(30) && limited.fallbackImageTTL == 60)
    }

    @Test("the rest of imgproxy's variables that mean what ours do")
    func sameMeaning() throws {
        let root = FileManager.default.temporaryDirectory.path
        let settings = try configuration(
            [],
            [
                "IMGPROXY_KEY": "aa01", "IMGPROXY_SALT": "bb01", "IMGPROXY_SIGNATURE_SIZE": "8", "IMGPROXY_TRUSTED_SIGNATURES": "s1,s2",
                "IMGPROXY_SECRET": "token", "IMGPROXY_ALLOW_ORIGIN": "*", "IMGPROXY_BASE_URL": "https://cdn.example/",
                "IMGPROXY_ALLOWED_SOURCES": "https://a.example/,https://*.b.example/", "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w,h",
                "IMGPROXY_TIMEOUT": "9", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "20", "IMGPROXY_MAX_ANIMATION_FRAMES": "4",
                "IMGPROXY_ENABLE_WEBP_DETECTION": "false", "IMGPROXY_AUTO_AVIF": "false", "IMGPROXY_ENFORCE_WEBP": "true",
                "IMGPROXY_ENFORCE_AVIF": "1", "IMGPROXY_AUTO_JXL": "true", "IMGPROXY_WATERMARK_OPACITY": "0.5",
                "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404", "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root, "IMGPROXY_READ_REQUEST_TIMEOUT": "12",
            ])
        #expect(settings.signingKeys.count == 1 && settings.signatureSize == 8 && settings.trustedSignatures == ["s1", "s2"])
        #expect(settings.secret == "token" && settings.allowOrigin == "*" && settings.baseURL == "https://cdn.example/")
        #expect(settings.allowedSources.map(\.description) == ["https://a.example/", "https://*.b.example/"])
        #expect(settings.allowedProcessingOptions == ["w", "h"])
        #expect(settings.requestTimeout == .seconds(9) && settings.shutdownTimeout == .seconds(20) && settings.maxFrames == 4)
        #expect(!settings.autoWebP && !settings.autoAVIF && settings.enforceWebP && settings.enforceAVIF && settings.negotiatesJXL)
        #expect(settings.watermarkOpacity == 0.5 && settings.fallbackImageStatus == 404)
        #expect(settings.localRoot == URL(fileURLWithPath: root).standardizedFileURL.path)
        #expect(settings.idleTimeout == .seconds(12))
        #expect(try configuration(["--allow-unsigned"], ["IMGPROXY_AUTO_WEBP": "false", "IMGPROXY_ENABLE_WEBP_DETECTION": "true"]).autoWebP == false)
    }

    @Test("--path-prefix, --url-replacement, --use-etag and --use-last-modified, and imgproxy's variables for them")
    func routingAndValidators() throws {
        let flags = try configuration(
            [
                "--allow-unsigned", "--path-prefix", "/img", "--url-replacement", "s3://*/=https://${1}.example.com/", "--url-replacement", "a:=b:;c:=d:",
                "--use-etag", "off", "--use-last-modified", "false",
            ], [:])
        #expect(flags.pathPrefix == "/img" && !flags.usesETag && !flags.usesLastModified)
        #expect(flags.urlReplacements.map(\.description) == ["s3://*/=https://${1}.example.com/", "a:=b:", "c:=d:"])
        let defaults = try configuration(["--allow-unsigned"], [:])
        #expect(defaults.pathPrefix.isEmpty && defaults.urlReplacements.isEmpty && defaults.usesETag && defaults.usesLastModified)
        let imgproxy = try configuration(
            ["--allow-unsigned"],
            [
                "IMGPROXY_PATH_PREFIX": "/cdn/img", "IMGPROXY_URL_REPLACEMENTS": "s3://*/=https://${1}.example.com/;a:=b:", "IMGPROXY_USE_ETAG": "false",
                "IMGPROXY_USE_LAST_MODIFIED": "0",
            ])
        #expect(imgproxy.pathPrefix == "/cdn/img" && !imgproxy.usesETag && !imgproxy.usesLastModified)
        #expect(imgproxy.urlReplacements.map(\.description) == ["s3://*/=https://${1}.example.com/", "a:=b:"])
        #expect(try configuration(["--allow-unsigned"], ["IMAGEPIPE_URL_REPLACEMENT": "a:=b:,c:=d:"]).urlReplacements.count == 2)
        #expect(usageError(["--allow-unsigned", "--path-prefix", "img"], [:]).contains("--path-prefix 'img' must start with /"))
        #expect(usageError(["--allow-unsigned", "--path-prefix", "/a b"], [:]).contains("--path-prefix"))
        #expect(usageError(["--allow-unsigned", "--url-replacement", "no-equals"], [:]).contains("--url-replacement 'no-equals' must be PATTERN=REPLACEMENT"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_USE_ETAG": "maybe"]).contains("IMGPROXY_USE_ETAG 'maybe'"))
    }

    @Test("--etag-buster and --last-modified-buster, and imgproxy's variables for them")
    func validatorBusters() throws {
        let flags = try configuration(["--allow-unsigned", "--etag-buster", "v2", "--last-modified-buster", "2026-11-29T12:00:00Z"], [:])
        #expect(flags.etagBuster == "v2" && flags.lastModifiedBuster == Date(timeIntervalSince1970: 1_795_953_600))
        let defaults = try configuration(["--allow-unsigned"], [:])
        #expect(defaults.etagBuster.isEmpty && defaults.lastModifiedBuster == nil)
        let imgproxy = try configuration(
            ["--allow-unsigned"], ["IMGPROXY_ETAG_BUSTER": "2026a", "IMGPROXY_LAST_MODIFIED_BUSTER": "2026-11-29T13:00:00+01:00"])
        #expect(imgproxy.etagBuster == "2026a" && imgproxy.lastModifiedBuster == Date(timeIntervalSince1970: 1_795_953_600))
        #expect(usageError(["--allow-unsigned", "--etag-buster", "a b"], [:]).contains("--etag-buster must be printable ASCII"))
        #expect(usageError(["--allow-unsigned", "--etag-buster", "a\"b"], [:]).contains("--etag-buster must be printable ASCII"))
        #expect(usageError(["--allow-unsigned", "--last-modified-buster", "yesterday"], [:]).contains("--last-modified-buster 'yesterday' must be an RFC 3339 time"))
    }

    @Test("IMGPROXY_LOG_LEVEL and IMGPROXY_LOG_FORMAT choose our log level and format")
    func logging() throws {
        #expect(try command(["--allow-unsigned"], ["IMGPROXY_LOG_LEVEL": "debug"]).verbose)
        #expect(try command(["--allow-unsigned"], ["IMGPROXY_LOG_LEVEL": "warn"]).quiet)
        let info = try command(["--allow-unsigned"], ["IMGPROXY_LOG_LEVEL": "info", "IMGPROXY_LOG_FORMAT": "json"])
        #expect(!info.quiet && !info.verbose && info.logFormat == .json)
        #expect(try command(["--allow-unsigned"], ["IMGPROXY_LOG_FORMAT": "pretty"]).logFormat == .text)
        #expect(try !command(["--allow-unsigned", "-v"], ["IMGPROXY_LOG_LEVEL": "error"]).quiet, "-v is given: imgproxy's level is not read")
    }

    @Test("a variable's bad value is a usage error naming the variable; credentials are not echoed")
    func badValues() {
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_WORKERS": "lots"]).contains("IMGPROXY_WORKERS 'lots' is not a value --workers takes"))
        #expect(usageError(["--allow-unsigned"], ["IMAGEPIPE_QUEUE": "many"]).contains("IMAGEPIPE_QUEUE 'many' is not a value --queue takes"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_WORKERS": "0"]).contains("--workers must be a whole number from 1 to 1024"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_AUTO_WEBP": "maybe"]).contains("IMGPROXY_AUTO_WEBP 'maybe' is not a value --auto-webp takes"))
        #expect(usageError(["--allow-unsigned"], ["IMGPROXY_ONLY_PRESETS": "perhaps"]).contains("IMGPROXY_ONLY_PRESETS 'perhaps'"))
    }

    @Test("IMGPROXY_ variables no setting reads are listed, to be logged once at start")
    func ignored() {
        let environment = ["IMGPROXY_USE_S3": "true", "IMGPROXY_KEY": "aa", "IMGPROXY_PRESETS_SEPARATOR": ";", "IMGPROXY_ENABLE_CLIENT_HINTS": "true", "HOME": "/root"]
        #expect(ServeEnvironment.ignoredImgproxyVariables(environment) == ["IMGPROXY_ENABLE_CLIENT_HINTS", "IMGPROXY_USE_S3"])
    }

    @Test("serve started with imgproxy's variables listens where IMGPROXY_BIND says and logs the ignored ones once")
    func startsFromImgproxyEnvironment() async throws {
        let server = try ServeProcess(["--allow-unsigned"], environment: ["IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_USE_S3": "true", "IMGPROXY_TTL": "60"])
        _ = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
        server.signal(SIGINT)
        #expect(try await server.exitStatus() == 0)
        let ignored = server.stderr.split(separator: "\n").filter { $0.contains("ignored: IMGPROXY_USE_S3") }
        #expect(ignored.count == 1, "\(server.stderr)")
        #expect(server.stderr.contains("cacheTTL=60"), "\(server.stderr)")
    }
}

@Suite("imagepipe serve: the settings table")
struct ServeSettingsTableTests {
    @Test("help shows every default of ImageServerConfiguration() it has a flag for")
    func helpShowsDefaults() {
        let help = ServeCommand.helpMessage(columns: 400)
        let defaults = ImageServerConfiguration()
        // Each option's entry, its wrapped lines joined.
        let entries = help.components(separatedBy: "\n  -").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        func line(_ flag: String) -> String { entries.first { $0.hasPrefix("-\(flag) ") || $0.hasPrefix("-\(flag),") } ?? "" }
        #expect(line("host").contains("(default: \(defaults.host))"))
        #expect(line("port").contains("(default: \(defaults.port))"))
        #expect(line("signature-size").contains("(default: \(defaults.signatureSize))"))
        #expect(line("quality").contains("(default: \(defaults.defaultQuality))"))
        #expect(line("format-quality").contains("(default: avif=63,jpeg=65,jxl=72,webp=82,"))
        #expect(line("auto-webp").contains("default: on)") && line("enforce-avif").contains("default: off)"))
        #expect(line("watermark-opacity").contains("(default: \(defaults.watermarkOpacity))"))
        #expect(line("workers").contains("(default: \(defaults.workers))"))
        #expect(line("queue").contains("(default: \(defaults.queueSize))"))
        #expect(line("ttl").contains("(default: \(defaults.cacheTTL))"))
        #expect(line("max-source-bytes").contains("(default: \(defaults.maxSourceBytes))"))
        #expect(line("max-url-length").contains("(default: \(defaults.maxURLLength))"))
        #expect(line("idle-timeout").contains("(default: \(Int(defaults.idleTimeout.components.seconds)))"))
        #expect(line("shutdown-timeout").contains("(default: \(Int(defaults.shutdownTimeout.components.seconds)))"))
        #expect(line("max-frames").contains("(default: \(defaults.maxFrames))"))
        #expect(line("max-output-pixels").contains("(default: \(defaults.maxOutputPixels))"))
        #expect(line("fallback-image-status").contains("(default: \(defaults.fallbackImageStatus))"))
        #expect(line("metrics-host").contains("(default: \(defaults.metricsHost))"))
        #expect(line("memory-limit").contains("(default: \(defaults.memoryLimit))"))
    }

    @Test("every property of ImageServerConfiguration is set by a row; the log masks what credential rows set")
    func everyPropertyHasARow() {
        let written = Set(ServeSettings.all.flatMap(\.writes))
        for property in Mirror(reflecting: ImageServerConfiguration()).children.compactMap(\.label) {
            #expect(written.contains(property), "no setting of serve sets ImageServerConfiguration.\(property)")
        }
        #expect(EffectiveSettings.credentials == ["signingKeys", "trustedSignatures", "secret", "sharedSources", "sharedResults", "adminSecret"])
    }

    @Test("one setting under two of its names is a usage error")
    func twoNames() {
        #expect(usageError(["--allow-unsigned", "--max-source-pixels", "5", "--max-src-resolution", "2"], [:]).contains("are the same setting: give one"))
        #expect(usageError(["--allow-unsigned", "--timeout", "5", "--request-timeout=6"], [:]).contains("--request-timeout and --timeout are the same setting"))
    }

    @Test("the service's docs table lists every setting: its flags, variables and imgproxy's")
    func docsTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ImageServer/ImageServer.docc/TheService.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let documented = text.split(separator: "\n").filter { $0.hasPrefix("| `--") || $0.hasPrefix("| `-v`") }.map(String.init)
        let expected = Self.rows()
        #expect(documented == expected, "TheService.md's settings table should be:\n\(expected.joined(separator: "\n"))")
    }

    /// The docs table's rows, one per setting.
    static func rows() -> [String] {
        ServeSettings.all.map { setting in
            let flags = ((setting.short.map { ["-\($0)"] } ?? []) + setting.longNames.map { "--" + $0 }).map { "`\($0)`" }.joined(separator: ", ")
            let variables = setting.variables.map { "`\($0)`" }.joined(separator: ", ")
            let imgproxy = setting.imgproxy.map { "`\($0.name)`" + ($0.note.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            let help = setting.help.replacingOccurrences(of: "|", with: "\\|")
            return "| \(flags) | \(variables) | \(imgproxy.isEmpty ? "—" : imgproxy) | \(help) |"
        }
    }
}
