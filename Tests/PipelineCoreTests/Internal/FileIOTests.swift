import Foundation
import Testing

@testable import PipelineCore

@Suite("Atomic file writes")
struct FileIOTests {
    /// A fresh folder for one test.
    private static func makeFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fileio-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("An exclusive write makes a new file whole and leaves no temporary file beside it")
    func exclusiveWriteMakesFile() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let data = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        let written = try FileIO.writeExclusively(data, to: folder + "/a.jpg", temporaryDirectory: folder, permissions: 0o644)
        #expect(written)
        #expect(FileManager.default.contents(atPath: folder + "/a.jpg") == data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["a.jpg"])
    }

    @Test("An exclusive write onto a taken name says so and leaves the file there untouched, and nothing else")
    func exclusiveWriteKeepsTakenName() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let theirs = Data("someone else's".utf8)
        try theirs.write(to: URL(fileURLWithPath: folder + "/a.jpg"))
        try FileManager.default.createDirectory(atPath: folder + "/b.jpg", withIntermediateDirectories: false)
        let ontoFile = try FileIO.writeExclusively(Data("ours".utf8), to: folder + "/a.jpg", temporaryDirectory: folder, permissions: 0o644)
        let ontoFolder = try FileIO.writeExclusively(Data("ours".utf8), to: folder + "/b.jpg", temporaryDirectory: folder, permissions: 0o644)
        #expect(!ontoFile && !ontoFolder)
        #expect(FileManager.default.contents(atPath: folder + "/a.jpg") == theirs)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["a.jpg", "b.jpg"])
    }

    @Test("An exclusive write into a folder that is gone fails with ENOENT and makes nothing")
    func exclusiveWriteIntoMissingFolder() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect {
            try FileIO.writeExclusively(Data("x".utf8), to: folder + "/gone/a.jpg", temporaryDirectory: folder + "/gone", permissions: 0o644)
        } throws: { ($0 as? FileIO.Failure)?.code == ENOENT }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }
}
