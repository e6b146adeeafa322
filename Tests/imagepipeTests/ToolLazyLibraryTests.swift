import Foundation
import TestSupport
import Testing

/// libcurl, libavif and libheif are opened when first needed, not linked: a run on local JPEGs
/// never loads them, and where one cannot be opened only what needs it fails, with a typed error
/// naming the library.
@Suite("imagepipe opens libcurl, libavif and libheif on first use")
struct ToolLazyLibraryTests {
    let temp = TempFolder()

    /// The libraries the tool opens itself; none may be linked.
    static let openedOnUse = ["libcurl", "libavif", "libheif", "libjxl", "librsvg-2"]
    /// What they bring: TLS, HTTP/2, Kerberos, LDAP, the AV1 and HEVC codecs.
    static let theirDependencies = [
        "libssl", "libcrypto", "libgnutls", "libnghttp2", "libgssapi_krb5", "libldap-2.5",
        "libaom", "librav1e", "libSvtAv1Enc", "libgav1", "libx265", "libde265",
        "libhwy", "libbrotlidec", "libcairo", "libglib-2.0", "libgio-2.0", "libpango-1.0",
    ]

    @Test("imagepipe links no curl, TLS, AVIF or HEIF library")
    func nothingOpenedOnUseIsLinked() throws {
        let output = String(decoding: try TestProcesses.run("/usr/bin/ldd", [CLIRunner.binary.path]), as: UTF8.self)
        let libraries = output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(libraries.contains { $0.hasPrefix("libjpeg.so") }, "ldd output not understood: \(libraries)")
        for library in Self.openedOnUse + Self.theirDependencies {
            #expect(!libraries.contains { $0.hasPrefix(library + ".so") }, "\(library) is linked: \(libraries)")
        }
    }

    @Test("no function in imagepipe carries a curl_, avif or heif_ name, so a program linking those libraries keeps them")
    func noFunctionTakesTheLibrariesNames() throws {
        let nm = try #require(ToolFixtures.tool("nm"), "nm (binutils) is needed to list the tool's symbols")
        let output = String(decoding: try TestProcesses.run(nm, ["--defined-only", CLIRunner.binary.path]), as: UTF8.self)
        let defined = output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(defined.contains("ip_curl_easy_init"), "nm output not understood")
        let taken = defined.filter { name in
            name.hasPrefix("curl_") || name.hasPrefix("heif_") || (name.hasPrefix("avif") && name.dropFirst(4).first?.isUppercase == true)
        }
        #expect(taken.isEmpty, "defined under the libraries' own names: \(taken)")
    }

    @Test("with libcurl, libavif and libheif unusable, downloads and AVIF fail with errors naming them; a JPEG still converts")
    func unusableLibrariesFailOnlyWhatNeedsThem() async throws {
        // Found first on the library path, these files are not shared objects, so opening fails.
        let fakes = temp.url.appendingPathComponent("fake-libraries")
        try FileManager.default.createDirectory(at: fakes, withIntermediateDirectories: true)
        for name in ["libcurl.so.4", "libavif.so.15", "libavif.so.16", "libheif.so.1"] {
            try Data("not a shared object\n".utf8).write(to: fakes.appendingPathComponent(name))
        }
        let avif = temp.path("badge.avif")
        let made = try await CLIRunner(cacheHome: temp.url).run(["convert", Samples.png, avif])
        #expect(made.status == 0, "\(made.stderr)")
        let cli = CLIRunner(cacheHome: temp.url, extraEnvironment: ["LD_LIBRARY_PATH": fakes.path])

        // Port 9 on loopback is never reached: the download fails before a connection.
        let fetch = try await cli.run(["fetch", "http://127.0.0.1:9/a.png", Samples.jpeg, "-o", temp.path("out"), "--no-cache", "--json"])
        #expect(fetch.status == 1)
        #expect(fetch.stderr.contains("libraryUnavailable") && fetch.stderr.contains("libcurl.so.4"), "\(fetch.stderr)")
        #expect(temp.files.contains("out") && (try? FileManager.default.contentsOfDirectory(atPath: temp.path("out")))?.count == 1)

        let info = try await cli.run(["info", avif])
        #expect(info.status == 1)
        #expect(info.stderr.contains("unsupported format 'avif'") && info.stderr.contains("libavif.so"), "\(info.stderr)")
        let jpeg = try await cli.run(["convert", Samples.jpeg, temp.path("photo.png")])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
    }

    @Test("with libheif unusable, a HEIC fails with an error naming it", .enabled(if: HEIFFixtures.toolsInstalled, HEIFFixtures.missingTools))
    func unusableLibheif() async throws {
        let fakes = temp.url.appendingPathComponent("fake-libraries")
        try FileManager.default.createDirectory(at: fakes, withIntermediateDirectories: true)
        try Data("not a shared object\n".utf8).write(to: fakes.appendingPathComponent("libheif.so.1"))
        let sample = HEIFFixtures.alpha
        _ = try sample.data()
        let info = try await CLIRunner(cacheHome: temp.url, extraEnvironment: ["LD_LIBRARY_PATH": fakes.path]).run(["info", sample.url.path])
        #expect(info.status == 1)
        #expect(info.stderr.contains("libheif.so.1"), "\(info.stderr)")
    }
}
