import Foundation
import Testing
import TestSupport

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
        let libraries = try Self.linkedLibraries("linkage-probe-png")
        #expect(Self.links(libraries, "libpng16"))
        for library in ["libavif", "libheif", "libdav1d", "libaom", "libx265", "libde265", "libwebp", "libgif", "libcurl"] {
            #expect(!Self.links(libraries, library), "\(library) is linked: \(libraries)")
        }
    }

    @Test("CodersAVIF links libavif but not libheif or the other coders' libraries")
    func avifOnly() throws {
        let libraries = try Self.linkedLibraries("linkage-probe-avif")
        #expect(Self.links(libraries, "libavif"))
        for library in ["libheif", "libx265", "libde265", "libpng16", "libwebp", "libcurl"] {
            #expect(!Self.links(libraries, library), "\(library) is linked: \(libraries)")
        }
    }

    @Test("CodersHEIF links libheif but not libavif or the other coders' libraries")
    func heifOnly() throws {
        let libraries = try Self.linkedLibraries("linkage-probe-heif")
        #expect(Self.links(libraries, "libheif"))
        for library in ["libavif", "libpng16", "libwebp", "libcurl"] {
            #expect(!Self.links(libraries, library), "\(library) is linked: \(libraries)")
        }
    }
}
