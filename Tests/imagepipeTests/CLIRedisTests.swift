import Foundation
import PipelineConformance
import Testing
import TestSupport

@Suite("imagepipe fetch --redis")
struct CLIRedisTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("A malformed --redis URL exits 1 naming the problem, never printing the password", arguments: [
        "redis://user:hunter2@127.0.0.1:6379", "redis://:hunter2@127.0.0.1:99999", "http://:hunter2@host",
    ])
    func malformedURL(url: String) async throws {
        let run = try await cli.run(["fetch", Samples.png, "--redis", url])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--redis: invalid Redis URL"), "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("hunter2"))
    }

    @Test("A second machine (another cache folder) gets the image from Redis after the source is gone",
          .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (make deps installs it)"))
    func sharedThroughRedis() async throws {
        let server = try RedisTestServer()
        let source = temp.path("shared.png")
        try FileManager.default.copyItem(atPath: Samples.png, toPath: source)
        let url = server.url(database: 2)
        // A store may be dropped on a loaded machine (a timeout): retried until one went through Redis.
        let stored = await eventually(timeout: .seconds(30)) {
            let first = try? await cli.run(["fetch", source, "--cache-dir", temp.path("a-\(UUID().uuidString)"), "--redis", url, "--json"])
            let second = try? await cli.run(["fetch", source, "--cache-dir", temp.path("b-\(UUID().uuidString)"), "--redis", url, "--json"])
            return first?.status == 0 && second?.jsonLines.first?["cacheType"] as? String == "disk"
        }
        #expect(stored)
        try FileManager.default.removeItem(atPath: source)
        let remote = try await cli.run(["fetch", source, "--cache-dir", temp.path("c"), "--redis", url, "--json"])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.jsonLines.first?["cacheType"] as? String == "disk")
        let local = try await cli.run(["fetch", source, "--cache-dir", temp.path("d")])
        #expect(local.status != 0)
    }
}
