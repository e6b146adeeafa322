import Foundation
import TestSupport
import Testing

/// Each coder is a product of its own: a program that does not depend on one does not link its
/// C library. The probes are programs built beside the test binary from the products named.
struct ProductLinkageTests {
    /// The shared libraries `ldd` lists for probe `name`, by file name.
    static func linkedLibraries(_ name: String) throws -> [String] {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let probe = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: probe.path) else { throw ProbeMissing(name: name) }
        let output = String(decoding: try TestProcesses.run("/usr/bin/ldd", [probe.path]), as: UTF8.self)
        return output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map { String($0.trimmingCharacters(in: .whitespaces)) } }
    }

    static func links(_ libraries: [String], _ name: String) -> Bool { libraries.contains { $0.hasPrefix(name + ".so") } }

    struct ProbeMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) should be built beside the test binary (swift build --build-tests)" }
    }

    @Test("PipelineCore and CodersPNG alone link libpng, and no AVIF, HEIF, WebP, GIF or curl library")
    func pngOnly() throws {
        try Self.expect(
            "linkage-probe-png", links: "libpng16",
            notAny: ["libavif", "libheif", "libdav1d", "libaom", "libx265", "libde265", "libwebp", "libgif", "libcurl"])
    }

    /// libdav1d stays linked: the shim's replacement of dav1d's default settings (its logger off)
    /// must be exported by the program for the libavif opened later to call it.
    @Test("CodersAVIF links neither libavif nor its codecs (it opens libavif on first use), nor the other coders' libraries")
    func avifOnly() throws {
        try Self.expect(
            "linkage-probe-avif", links: "libdav1d",
            notAny: ["libavif", "libaom", "librav1e", "libSvtAv1Enc", "libgav1", "libheif", "libx265", "libde265", "libpng16", "libwebp", "libcurl"])
    }

    @Test("CodersHEIF links neither libheif nor its codecs (it opens libheif on first use), nor the other coders' libraries")
    func heifOnly() throws {
        try Self.expect("linkage-probe-heif", links: "libc", notAny: ["libheif", "libde265", "libx265", "libavif", "libpng16", "libwebp", "libcurl"])
    }

    /// libtiff brings its own codecs (libjpeg, libwebp, zstd, …), but no other coder's library.
    @Test("CodersTIFF links libtiff, and no other coder's library")
    func tiffOnly() throws {
        try Self.expect("linkage-probe-tiff", links: "libtiff", notAny: ["libpng16", "libwebpdemux", "libgif", "libavif", "libheif", "libcurl"])
    }

    @Test("CodersBMP links no image library: it is Swift")
    func bmpOnly() throws {
        try Self.expect(
            "linkage-probe-bmp", links: "libc",
            notAny: ["libpng16", "libjpeg", "libtiff", "libwebp", "libgif", "libavif", "libheif", "libjxl", "librsvg-2", "libcurl"])
    }

    @Test("CodersJXL links neither libjxl nor its dependencies (it opens libjxl on first use), nor the other coders' libraries")
    func jxlOnly() throws {
        try Self.expect(
            "linkage-probe-jxl", links: "libc",
            notAny: ["libjxl", "libjxl_threads", "libhwy", "libbrotlidec", "libbrotlienc", "liblcms2", "libpng16", "libtiff", "libavif", "libheif", "libcurl"])
    }

    @Test("CodersSVG links neither librsvg nor cairo or GLib (it opens librsvg on first use), nor the other coders' libraries")
    func svgOnly() throws {
        try Self.expect(
            "linkage-probe-svg", links: "libc",
            notAny: ["librsvg-2", "libcairo", "libglib-2.0", "libgobject-2.0", "libgio-2.0", "libpango-1.0", "libxml2", "libpng16", "libjxl", "libcurl"])
    }

    @Test("LoaderHTTP links no curl, TLS or HTTP/2 library: it opens libcurl on the first download")
    func httpOnly() throws {
        try Self.expect(
            "linkage-probe-http", links: "libc",
            notAny: ["libcurl", "libssl", "libcrypto", "libgnutls", "libnghttp2", "libgssapi_krb5", "libldap-2.5"])
    }

    /// Probe `name` links `required` (which also shows `ldd`'s output was understood) and none of
    /// `forbidden`.
    static func expect(_ name: String, links required: String, notAny forbidden: [String]) throws {
        let libraries = try linkedLibraries(name)
        #expect(links(libraries, required), "\(required) is not linked: \(libraries)")
        for library in forbidden {
            #expect(!links(libraries, library), "\(library) is linked: \(libraries)")
        }
    }
}
