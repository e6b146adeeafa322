import Foundation
import PipelineConformance
import TestSupport
import Testing

@Suite("imagepipe --block-private-addresses")
struct CLINetworkGuardTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test(
        "fetch and info with the guard refuse a loopback URL without connecting, exit 1, and name the guard",
        arguments: [
            ["fetch", "--no-cache"], ["info"],
        ])
    func refusesLoopback(command: [String]) async throws {
        let listener = try ConnectionCounter()
        let url = "http://127.1:\(listener.port)/a.png"
        let run = try await cli.run(command + ["--block-private-addresses", url])
        #expect(run.status == 1)
        #expect(run.stderr.contains("imagepipe: \(url): transfer failed (blockedAddress): the SSRF guard refused to connect to 127.0.0.1, a loopback address"), "\(run.stderr)")
        #expect(run.stderr.contains("--allow-address 127.0.0.1"))
        #expect(listener.count() == 0)
    }

    @Test("--allow-address lets an address through the guard")
    func allowAddress() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.serveBytes("/badge.png", try Data(contentsOf: URL(fileURLWithPath: Samples.png)), contentType: "image/png")
        let url = server.url("/badge.png").absoluteString
        let run = try await cli.run(["info", "--block-private-addresses", "--allow-address", "127.0.0.0/8", url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(url): png"))
    }

    @Test(
        "a bad --allow-address, or one without --block-private-addresses, is bad usage",
        arguments: [
            ["info", "--block-private-addresses", "--allow-address", "localhost", "x.png"],
            ["fetch", "--block-private-addresses", "--allow-address", "10.0.0.0/33", "x.png"],
            ["info", "--allow-address", "127.0.0.1", "x.png"],
        ])
    func badAllowAddress(arguments: [String]) async throws {
        let run = try await cli.run(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains("--allow-address"), "\(run.stderr)")
    }
}
