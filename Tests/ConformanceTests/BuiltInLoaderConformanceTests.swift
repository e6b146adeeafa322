import Foundation
import LoaderFile
import LoaderHTTP
import PipelineConformance
import PipelineCore
import Testing

@Suite("Built-in loaders keep the kit's loader contracts")
struct BuiltInLoaderConformanceTests {
    /// The kit's time limit only catches a hang; a machine shared with builds needs a generous one.
    static let options = {
        var options = LoaderConformance.Options()
        options.timeLimit = .seconds(60)
        return options
    }()

    @Test("HTTPLoader against the kit's local server")
    func httpLoader() async {
        var configuration = HTTPLoaderConfiguration()
        // Generous against a loaded machine; the kit's own time limit is what catches a hang.
        configuration.timeout = 30
        configuration.connectTimeout = 10
        let loader = HTTPLoader(configuration: configuration)
        defer { loader.invalidate() }
        await LoaderConformance.checkHTTP(loader, options: Self.options)
    }

    @Test("FileLoader on a temporary file, a missing file and a data: URL")
    func fileLoader() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Larger than the reader's chunk, so progress has several steps.
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 7) })
        let file = directory.appendingPathComponent("image.bin")
        try bytes.write(to: file)
        let fixture = LoaderFixture(
            url: file, expectedData: bytes,
            failingURLs: [directory.appendingPathComponent("missing.png"), URL(string: "data:image/png;base64,%%%")!],
            foreignURLs: [URL(string: "https://example.com/a.png")!, URL(string: "ftp://example.com/a.png")!])
        await LoaderConformance.check(FileLoader(), fixture: fixture, options: Self.options)
        let small = Data("a data URL body".utf8)
        let dataURL = URL(string: "data:application/octet-stream;base64," + small.base64EncodedString())!
        await LoaderConformance.check(FileLoader(), fixture: LoaderFixture(url: dataURL, expectedData: small), options: Self.options)
    }
}
