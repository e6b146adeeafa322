import Foundation
import FuzzHarness
import TestSupport
import Testing

/// Every input a fuzz target found (a crash, leak, timeout or runaway memory), kept in
/// `Tests/Fixtures/fuzz/<target>/` once fixed and replayed through the code that fuzz target runs:
/// each must now end in a typed error or an image within its limits. Open findings wait in
/// `Fuzz/findings/`, which is not replayed.
@Suite("Fuzz findings", .dedicatedThreads)
struct FuzzRegressionTests {
    struct Finding: Sendable, CustomTestStringConvertible {
        let target: FuzzTarget
        let url: URL
        var testDescription: String { "\(target.rawValue)/\(url.lastPathComponent)" }
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/fuzz")

    static func contents(_ directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    static let findings: [Finding] = FuzzTarget.allCases.flatMap { target in
        contents(root.appendingPathComponent(target.rawValue)).map { Finding(target: target, url: $0) }
    }

    @Test("A kept finding now ends in a typed error or a bounded result", arguments: findings)
    func replay(_ finding: Finding) throws {
        let data = try Data(contentsOf: finding.url)
        #expect(throws: Never.self) { try finding.target.run(data) }
    }

    // AVIF and HEIF seeds come from the reference encoders in Fuzz/run.sh, TIFF, BMP and ICO seeds
    // from the fixtures in Tests/Fixtures/corpus, not from FuzzSeeds.
    @Test("The generated seeds are small images each coder target decodes without a violation", arguments: FuzzTarget.allCases)
    func generatedSeeds(_ target: FuzzTarget) throws {
        let seeds = try FuzzSeeds.make(for: target)
        #expect(seeds.isEmpty == [.avif, .heif, .tiff, .bmp, .transformSpec, .dataURL, .diskCacheName].contains(target))
        for (name, data) in seeds {
            #expect(data.count <= 2048, "\(name): \(data.count) bytes")
            #expect(throws: Never.self, "\(name)") { try target.run(data) }
        }
    }

    @Test("Every folder of kept findings names a fuzz target, so none is skipped")
    func foldersNameTargets() {
        let names = Set(FuzzTarget.allCases.map(\.rawValue))
        for folder in Self.contents(Self.root) {
            #expect(names.contains(folder.lastPathComponent), "no fuzz target \(folder.lastPathComponent)")
        }
    }
}
