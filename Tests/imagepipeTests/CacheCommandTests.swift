import Foundation
import TestSupport
import Testing

@Suite("imagepipe cache folders and special files")
struct CacheCommandTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// A folder of someone's files: a large old archive, notes, a hidden file, a subfolder, a
    /// symlink. Returns each file's path and bytes.
    func userFolder() throws -> (path: String, files: [String: Data]) {
        let folder = temp.path("documents")
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        var files: [String: Data] = [:]
        for (name, data) in [
            ("backup.tar", Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
            ("notes.txt", Data("remember the milk\n".utf8)),
            (".hidden", Data("x".utf8)),
            ("photos/holiday.png", try Data(contentsOf: URL(fileURLWithPath: Samples.png))),
        ] {
            try data.write(to: URL(fileURLWithPath: folder + "/" + name))
            try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -400 * 24 * 3600)], ofItemAtPath: folder + "/" + name)
            files[folder + "/" + name] = data
        }
        try fm.createSymbolicLink(atPath: folder + "/latest", withDestinationPath: folder + "/notes.txt")
        return (folder, files)
    }

    func expectUnchanged(_ files: [String: Data], in folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (path, data) in files {
            #expect(FileManager.default.contents(atPath: path) == data, "\(path) changed", sourceLocation: sourceLocation)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == [".hidden", "backup.tar", "latest", "notes.txt", "photos"], sourceLocation: sourceLocation)
    }

    func warnings(_ run: CLIRunner.Run) -> [Substring] {
        run.stderr.split(separator: "\n").filter { $0.hasPrefix("imagepipe: warning: ") }
    }

    @Test("A folder of user files survives fetch, cache trim and cache clear byte for byte; trim, clear and stats exit 1 saying why")
    func userFolderSurvives() async throws {
        let (folder, files) = try userFolder()
        let out = temp.path("out")
        let fetch = try await cli.run(["fetch", Samples.png, "-o", out, "--cache-dir", folder, "--json"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.jsonLines.first?["output"] as? String != nil)
        #expect(warnings(fetch).count == 1)
        #expect(fetch.stderr.contains("is not a cache folder"))
        for action in ["trim", "clear", "stats"] {
            let run = try await cli.run(["cache", action, "--cache-dir", folder])
            #expect(run.status == 1, "cache \(action)")
            #expect(run.stderr.contains("\(folder): not a cache folder (no CACHEDIR.TAG, and it holds '"), "cache \(action): \(run.stderr)")
            #expect(run.stderr.contains("', which the cache did not write)"), "cache \(action): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        let json = try await cli.run(["cache", "clear", "--cache-dir", folder, "--json"])
        #expect(json.status == 1)
        #expect((json.jsonLines.first?["error"] as? String)?.contains("nothing removed") == true)
        try expectUnchanged(files, in: folder)
    }

    @Test("cache clear exits 1 on a missing folder or an empty unmarked one, and 0 on a cache, even an empty one")
    func clearNeedsACache() async throws {
        let missing = try await cli.run(["cache", "clear", "--cache-dir", temp.path("typo")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no cache here (the folder does not exist); nothing removed"))
        #expect(!FileManager.default.fileExists(atPath: temp.path("typo")))
        try FileManager.default.createDirectory(atPath: temp.path("empty"), withIntermediateDirectories: false)
        let empty = try await cli.run(["cache", "clear", "--cache-dir", temp.path("empty")])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("not a cache folder (no CACHEDIR.TAG and no entries); nothing removed"))
        #expect(try await cli.run(["cache", "stats", "--cache-dir", temp.path("typo")]).status == 0, "stats of a cache not made yet is 0 entries")

        let cache = temp.path("cache")
        #expect(try await cli.run(["fetch", Samples.png, "--cache-dir", cache]).status == 0)
        #expect(FileManager.default.contents(atPath: cache + "/CACHEDIR.TAG")?.starts(with: Data("Signature: 8a477f597d28d172789f06886806bc55".utf8)) == true)
        // A file a user puts into the cache folder later is not the cache's to remove.
        try Data("mine".utf8).write(to: URL(fileURLWithPath: cache + "/notes.txt"))
        for _ in 0..<2 {
            let clear = try await cli.run(["cache", "clear", "--cache-dir", cache, "--json"])
            #expect(clear.status == 0, "\(clear.stderr)")
            #expect(clear.jsonLines.first?["count"] as? Int == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).sorted() == ["CACHEDIR.TAG", "notes.txt"])
    }

    @Test("A folder without a tag whose files all have entry names (md5 sums, say) is refused by clear and trim unless --untagged")
    func untaggedFolderNeedsAsking() async throws {
        let folder = temp.path("checksums")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var files: [String: Data] = [:]
        for (index, name) in ["d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661.png"].enumerated() {
            let data = Data("someone's file \(index)".utf8)
            try data.write(to: URL(fileURLWithPath: folder + "/" + name))
            files[folder + "/" + name] = data
        }
        for action in ["clear", "trim"] {
            let run = try await cli.run(["cache", action, "--cache-dir", folder])
            #expect(run.status == 1, "cache \(action)")
            #expect(run.stderr.contains("\(folder): no CACHEDIR.TAG, so not known to be a cache folder (--untagged clears or trims it as one); nothing removed"), "\(run.stderr)")
        }
        for (path, data) in files { #expect(FileManager.default.contents(atPath: path) == data, "\(path) changed") }
        #expect(try await cli.run(["cache", "stats", "--cache-dir", folder]).status == 0, "stats only reads")

        let asked = try await cli.run(["cache", "clear", "--cache-dir", folder, "--untagged", "--json"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.jsonLines.first?["count"] as? Int == 0)
        for path in files.keys { #expect(!FileManager.default.fileExists(atPath: path)) }
    }

    @Test("A cache write that fails (the folder's parent is a file, which stops root too) is one warning line, escaped; the fetch succeeds")
    func failedStoreIsAWarning() async throws {
        let file = temp.path("file\nimagepipe: forged \u{1B}[31m")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let run = try await cli.run(["fetch", Samples.png, "-o", temp.path("out"), "--cache-dir", file + "/cache", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.first?["output"] as? String != nil)
        let lines = warnings(run)
        try #require(lines.count == 1, "\(run.stderr)")
        #expect(lines[0].contains("cannot store the image in the disk cache"))
        #expect(lines[0].contains("cache.key: " + URL(fileURLWithPath: Samples.png).absoluteString))
        #expect(lines[0].contains("file\\nimagepipe: forged \\u{1B}[31m/cache"))
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\nimagepipe: forged"))
    }

    @Test("fetch and info of a FIFO fail at once as not a regular file, exit 1")
    func fifoSource() async throws {
        let fifo = try FIFO(at: temp.path("pipe.png"))
        defer { fifo.releaseReaders() }
        for arguments in [["fetch", fifo.path, "--no-cache"], ["info", fifo.path]] {
            let run = try #require(await withTimeLimit { try await cli.run(arguments) }, "\(arguments[0]) of a FIFO hung").get()
            #expect(run.status == 1)
            #expect(run.stderr.contains("not a regular file"), "\(run.stderr)")
        }
    }

    @Test("A FIFO planted under a cache entry's name is a miss: the fetch loads the source and succeeds")
    func fifoAsCacheEntry() async throws {
        let cache = temp.path("cache")
        #expect(try await cli.run(["fetch", Samples.png, "--cache-dir", cache]).status == 0)
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasSuffix(".png") })
        try FileManager.default.removeItem(atPath: cache + "/" + entry)
        let fifo = try FIFO(at: cache + "/" + entry)
        defer { fifo.releaseReaders() }
        let run = try #require(
            await withTimeLimit { try await cli.run(["fetch", Samples.png, "--cache-dir", cache, "--json"]) },
            "reading the planted FIFO hung"
        ).get()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.jsonLines.first?["cacheType"] as? String == "none")
    }
}
