import Foundation
import Testing

/// The public conformance images copied into `Tests/Fixtures/corpus` (licences beside them), read
/// through their `MANIFEST.tsv` files. Tests never reach outside the repository.
public enum Corpus {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/corpus")

    public struct Row: Sendable, CustomTestStringConvertible {
        public let suite: String
        public let file: String
        public let expectDecode: Bool
        public let width: Int
        public let height: Int
        public let frames: Int
        public let notes: String

        public var url: URL { Corpus.root.appendingPathComponent(suite).appendingPathComponent(file) }
        public var isDisputed: Bool { notes.contains("DISAGREE") }
        public var testDescription: String { "\(suite)/\(file)" }
    }

    /// The rows of one suite's manifest (`pngsuite`, `jpeg`, `webp`, `gif`).
    public static func rows(_ suite: String) -> [Row] {
        let manifest = root.appendingPathComponent(suite).appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6 else { return nil }
            return Row(
                suite: suite, file: f[0], expectDecode: f[1] == "decode",
                width: Int(f[2]) ?? 0, height: Int(f[3]) ?? 0, frames: Int(f[4]) ?? 0, notes: f[5])
        }
    }

    public static func data(_ suite: String, _ file: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(suite).appendingPathComponent(file))
    }
}
