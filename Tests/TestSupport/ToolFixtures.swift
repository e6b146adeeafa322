import Foundation
import Synchronization

/// Files made by the reference command-line tools (avifenc/avifdec from libavif-bin,
/// heif-enc/heif-convert from libheif-examples), in one temporary folder per test process, so
/// these AVIF and HEIC files are not stored in the repository (the edited AVIF files of
/// `Tests/Fixtures/corpus/avif` are, with the script that made them). `make deps` installs the
/// tools; tests that need one are skipped, saying so, where it is missing.
public enum ToolFixtures {
    /// The tool's path when it is installed.
    public static func tool(_ name: String) -> String? {
        let path = "/usr/bin/\(name)"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    public static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-tool-fixtures-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private static let made = Mutex<[String: Data]>([:])

    /// A PNG of `TestPNGWriter.pattern`, written into the folder; its URL.
    public static func sourcePNG(width: Int, height: Int, alpha: Bool, seed: Int = 0) throws -> URL {
        let url = folder.appendingPathComponent("source-\(width)x\(height)-\(alpha ? "rgba" : "rgb")-\(seed).png")
        if !FileManager.default.fileExists(atPath: url.path) {
            let png = TestPNGWriter.png(width: width, height: height, rgba: TestPNGWriter.pattern(width: width, height: height, alpha: alpha, seed: seed), alpha: alpha)
            try png.write(to: url, options: .atomic)
        }
        return url
    }

    /// Runs `tool` with `arguments` followed by the output path, once per `name` and process,
    /// and returns the file it wrote.
    public static func make(_ name: String, tool: String, _ arguments: [String]) throws -> Data {
        if let data = made.withLock({ $0[name] }) { return data }
        guard let path = Self.tool(tool) else { throw ToolFixtureError.missing(tool) }
        // Tests run in parallel and may make the same file at once: each writes its own copy and
        // renames it into place.
        let output = folder.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try TestProcesses.run(path, arguments + [output.path])
        let data = try Data(contentsOf: output)
        guard rename(output.path, url(name).path) == 0 else { throw ToolFixtureError.unreadable(output.path) }
        made.withLock { $0[name] = data }
        return data
    }

    /// Where `make` writes the file `name`.
    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// The pixels a reference decoder writes to a PNG for `input` (extra `arguments` before the
    /// two paths), as RGBA.
    public static func reference(tool: String, _ arguments: [String] = [], input: URL) throws -> ReferencePNG.Pixels {
        guard let path = Self.tool(tool) else { throw ToolFixtureError.missing(tool) }
        let output = folder.appendingPathComponent("\(UUID().uuidString)-\(input.lastPathComponent).png")
        defer { try? FileManager.default.removeItem(at: output) }
        try TestProcesses.run(path, arguments + [input.path, output.path])
        guard let pixels = ReferencePNG.read(output) else { throw ToolFixtureError.unreadable(output.path) }
        return pixels
    }
}

public enum ToolFixtureError: Error, CustomStringConvertible {
    case missing(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .missing(let tool): "\(tool) is not installed (make deps installs it)"
        case .unreadable(let path): "\(path) is not a PNG the reference reader reads"
        }
    }
}
