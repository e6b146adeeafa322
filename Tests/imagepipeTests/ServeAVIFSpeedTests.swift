import Foundation
import PipelineConformance
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--avif-speed` reaches libaom through the server's encode options: the same request at two
/// speeds gives two different files.
@Suite("imagepipe serve --avif-speed", .dedicatedThreads)
struct ServeAVIFSpeedTests {
    @Test("the same AVIF request at --avif-speed 9 and at 2 gives two different AVIF files")
    func speedReachesTheEncoder() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let pattern = TestPNGWriter.pattern(width: 96, height: 64, alpha: false)
        origin.serveBytes("/p.png", TestPNGWriter.png(width: 96, height: 64, rgba: pattern, alpha: false), contentType: "image/png")
        var files: [Data] = []
        for speed in ["9", "2"] {
            let server = try ServeProcess(["--port", "0", "--allow-unsigned", "--allow-private-sources", "--quiet", "--no-cache", "--avif-speed", speed])
            let port = try #require(await server.port(), "stdout: \(server.stdout) stderr: \(server.stderr)")
            let url = "http://127.0.0.1:\(port)/insecure/plain/\(origin.baseURL)/p.png@avif"
            files.append(try await runBlocking { try TestProcesses.run("/usr/bin/curl", ["-s", "-f", "-m", "60", url]) })
            server.signal(SIGTERM)
            #expect(try await server.exitStatus() == 0)
        }
        // An ISO-BMFF file whose major brand is AVIF's.
        #expect(files.allSatisfy { $0.count > 12 && $0[4..<12] == Data("ftypavif".utf8) }, "\(files.map(\.count))")
        #expect(files[0] != files[1], "--avif-speed 9 and 2 wrote the same \(files[0].count) bytes")
    }
}
