import Foundation
import TestSupport
import Testing

@Suite("What -v logs")
struct ToolLoggingTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    @Test("-v logs a source URL's user name and password as ***")
    func credentialsRedacted() async throws {
        let run = try await cli.run(["fetch", "http://alice:s3cret@127.0.0.1:9/a.png", "--no-cache", "-v"])
        let logLines = run.stderr.split(separator: "\n").filter { $0.contains(" debug ") || $0.contains(" info ") }
        #expect(logLines.contains { $0.contains("http://***@127.0.0.1:9/a.png") }, "\(run.stderr)")
        #expect(!logLines.contains { $0.contains("s3cret") || $0.contains("alice") }, "\(run.stderr)")
    }
}
