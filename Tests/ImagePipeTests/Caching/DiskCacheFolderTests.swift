import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Disk cache folder")
struct DiskCacheFolderTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    /// A cache that expires everything and trims at the first byte, so any file it counted as an
    /// entry would go.
    func greedyCache() -> DiskCache {
        DiskCache(
            directory: directory.url,
            configuration: DiskCache.Configuration(
                maxAge: 0, sizeLimit: 1, trimInterval: nil, accessDateResolution: 0, clock: clock.cacheClock))
    }

    /// A user's files: big and small, old and new, hidden, in a subfolder, behind a symlink.
    /// Returns each path with its bytes.
    func plantUserFiles() throws -> [String: Data] {
        let fm = FileManager.default
        var files: [String: Data] = [:]
        func write(_ name: String, _ data: Data, age: TimeInterval = 0) throws {
            let url = directory.url.appendingPathComponent(name)
            try data.write(to: url)
            if age > 0 { try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path) }
            files[url.path] = data
        }
        try write("backup.tar", Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), age: 400 * 24 * 3600)
        try write("notes.txt", Data("remember the milk\n".utf8), age: 30 * 24 * 3600)
        try write(".profile", Data("export X=1\n".utf8), age: 30 * 24 * 3600)
        try write(".tmp-mine", Data("not the cache's temporary naming".utf8), age: 30 * 24 * 3600)
        try fm.createDirectory(at: directory.url.appendingPathComponent("photos"), withIntermediateDirectories: false)
        try write("photos/" + MD5.hex("k"), Data("looks like an entry, one folder down".utf8))
        try fm.createSymbolicLink(atPath: directory.path + "/link-to-notes", withDestinationPath: directory.path + "/notes.txt")
        return files
    }

    func expectUnchanged(_ files: [String: Data], sourceLocation: SourceLocation = #_sourceLocation) {
        for (path, data) in files {
            #expect(FileManager.default.contents(atPath: path) == data, "\(path) changed", sourceLocation: sourceLocation)
        }
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory.path + "/link-to-notes")) != nil,
            sourceLocation: sourceLocation)
    }

    @Test("A folder of user files survives writes, trims and clears byte for byte, and is not marked as a cache")
    func userFolderUntouched() throws {
        let files = try plantUserFiles()
        let cache = greedyCache()
        let userNames = [".profile", ".tmp-mine", "backup.tar", "link-to-notes", "notes.txt", "photos"]
        guard case .foreign(let name) = cache.folderState else {
            Issue.record("a folder of user files is \(cache.folderState)")
            return
        }
        #expect(userNames.contains(name))
        let error = #expect(throws: DiskCache.FolderError.self) { try cache.setData(Data("v".utf8), forKey: "k") }
        #expect(error?.description.contains("is not a cache folder") == true)
        #expect(error?.description.contains("'\(name)'") == true)
        cache.removeExpiredAndTrim()
        cache.removeAll()
        cache.removeData(forKey: "k")
        #expect(cache.totalCount == 0 && cache.totalSize == 0)
        #expect(cache.data(forKey: "k") == nil)
        expectUnchanged(files)
        #expect(directory.allNames == userNames)
    }

    @Test("In a marked folder the cache writes, trims and clears its own names only; other files stay byte for byte")
    func markedFolderWithUserFiles() throws {
        try Data(DiskCache.tagContents.utf8).write(to: directory.url.appendingPathComponent(DiskCache.tagFileName))
        let files = try plantUserFiles()
        let cache = greedyCache()
        #expect(cache.folderState == .cache)
        try cache.setData(Data("one".utf8), forKey: "https://a.com/1.png")
        try cache.setData(Data("two".utf8), forKey: "https://a.com/2")
        #expect(cache.totalCount <= 2)
        clock.advance(by: 1)
        try cache.setData(Data("three".utf8), forKey: "https://a.com/3.png")
        cache.removeExpiredAndTrim()
        #expect(cache.totalCount == 0)
        try cache.setData(Data("four".utf8), forKey: "https://a.com/4.png")
        cache.removeAll()
        #expect(cache.totalCount == 0)
        expectUnchanged(files)
        #expect(directory.fileNames == ["backup.tar", "link-to-notes", "notes.txt", "photos"])
    }

    @Test("Under an entry's name, a symlink, a folder, a FIFO or a device is neither read, counted, trimmed nor cleared")
    func specialFilesUnderEntryNames() async throws {
        let cache = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(trimInterval: nil))
        try cache.setData(Data("real".utf8), forKey: "real")
        let outside = directory.url.deletingLastPathComponent().appendingPathComponent("outside.txt")
        try Data("outside".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: cache.filePath(forKey: "link"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: cache.filePath(forKey: "zero"), withDestinationPath: "/dev/zero")
        try FileManager.default.createDirectory(atPath: cache.filePath(forKey: "folder"), withIntermediateDirectories: false)
        let fifo = try FIFO(at: cache.filePath(forKey: "fifo"))
        defer { fifo.releaseReaders() }
        // /dev/zero's own node (major 1, minor 5), where the tests may make devices (as root).
        let device = mknod(cache.filePath(forKey: "device"), S_IFCHR | 0o644, (1 << 8) | 5) == 0
        let specials = ["link", "zero", "folder", "fifo"] + (device ? ["device"] : [])

        let misses = try #require(
            await withTimeLimit {
                specials.map { cache.data(forKey: $0) == nil && !cache.containsData(forKey: $0) }
            }, "a read of a special file hung"
        ).get()
        #expect(misses == specials.map { _ in true })
        let extended = try #require(await withTimeLimit { cache.extendedData(forKey: "fifo") }, "hung").get()
        #expect(extended == nil)
        #expect(cache.totalCount == 1)
        #expect(cache.data(forKey: "real") == Data("real".utf8))
        for key in specials { cache.removeData(forKey: key) }
        cache.removeExpiredAndTrim()
        cache.removeAll()
        #expect(cache.totalCount == 0)
        #expect(FileManager.default.contents(atPath: outside.path) == Data("outside".utf8))
        #expect(directory.fileNames == specials.map { DiskCache.fileName(forKey: $0) }.sorted())
    }

    @Test("A missing folder is created on the first write, marked with a CACHEDIR.TAG backup tools honour")
    func newFolderIsMarked() throws {
        let folder = directory.url.appendingPathComponent("new/cache")
        let cache = DiskCache(directory: folder, configuration: DiskCache.Configuration(trimInterval: nil))
        #expect(cache.folderState == .missing)
        cache.removeAll()
        cache.removeExpiredAndTrim()
        #expect(!FileManager.default.fileExists(atPath: folder.path), "trims and clears never create the folder")
        try cache.setData(Data("v".utf8), forKey: "k")
        #expect(cache.folderState == .cache)
        let tag = try #require(FileManager.default.contents(atPath: folder.path + "/CACHEDIR.TAG"))
        #expect(tag.prefix(43) == Data("Signature: 8a477f597d28d172789f06886806bc55".utf8))
        // Removed behind the cache's back, the folder comes back marked.
        try FileManager.default.removeItem(at: folder)
        try cache.setData(Data("v".utf8), forKey: "k")
        #expect(cache.folderState == .cache && cache.data(forKey: "k") == Data("v".utf8))
    }

    @Test("An empty folder, or an older cache holding only the cache's names, is adopted and marked")
    func unmarkedFolderIsAdopted() throws {
        let key = "https://a.com/old.png"
        try Data("old".utf8).write(to: directory.url.appendingPathComponent(DiskCache.fileName(forKey: key)))
        try Data("crashed writer".utf8).write(to: directory.url.appendingPathComponent(".tmp-12-34"))
        let cache = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(trimInterval: nil))
        #expect(cache.folderState == .unmarked)
        #expect(cache.data(forKey: key) == Data("old".utf8))
        try cache.setData(Data("new".utf8), forKey: "https://a.com/new.png")
        #expect(cache.folderState == .cache)
        #expect(cache.totalCount == 2)
    }

    @Test("A tag without the standard's signature does not make a cache")
    func badTag() throws {
        try Data("hello".utf8).write(to: directory.url.appendingPathComponent(DiskCache.tagFileName))
        let cache = greedyCache()
        #expect(cache.folderState == .foreign(name: DiskCache.tagFileName))
        #expect(throws: DiskCache.FolderError.self) { try cache.setData(Data("v".utf8), forKey: "k") }
    }

    @Test("A path through a regular file cannot hold a cache; the write fails with the reason")
    func pathThroughFile() throws {
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let cache = DiskCache(directory: file.appendingPathComponent("cache"), configuration: DiskCache.Configuration(trimInterval: nil))
        #expect(cache.folderState == .unusable(reason: "Not a directory"))
        #expect(throws: (any Error).self) { try cache.setData(Data("v".utf8), forKey: "k") }
        let onFile = DiskCache(directory: file, configuration: DiskCache.Configuration(trimInterval: nil))
        #expect(onFile.folderState == .unusable(reason: "not a folder"))
        #expect(throws: DiskCache.FolderError.self) { try onFile.setData(Data("v".utf8), forKey: "k") }
        #expect(FileManager.default.contents(atPath: file.path) == Data("x".utf8))
    }

    @Test("Crash leftovers of the cache's own temporary naming are swept once stale; other hidden files never")
    func leftoversByNaming() throws {
        let cache = greedyCache()
        try cache.setData(Data("v".utf8), forKey: "k")
        let old = Date().addingTimeInterval(-2 * DiskCache.staleTemporaryFileAge)
        let planted: [String: Bool] = [".tmp-123-456": false, ".tmp-789-1": true, ".tmp-1-2-3": true, ".tmp-x-1": true, ".tmpfile": true]
        for name in planted.keys {
            let path = directory.path + "/" + name
            try Data("t".utf8).write(to: URL(fileURLWithPath: path))
            if name != ".tmp-789-1" { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path) }
        }
        cache.removeExpiredAndTrim()
        for (name, kept) in planted {
            #expect(FileManager.default.fileExists(atPath: directory.path + "/" + name) == kept, "\(name)")
        }
    }

    @Test(
        "Entry names are exactly what fileName(forKey:) can give",
        arguments: [
            ("d41d8cd98f00b204e9800998ecf8427e", true),
            ("d41d8cd98f00b204e9800998ecf8427e.png", true),
            ("d41d8cd98f00b204e9800998ecf8427e.jpg large", true),
            ("D41D8CD98F00B204E9800998ECF8427E", false),
            ("d41d8cd98f00b204e9800998ecf8427", false),
            ("d41d8cd98f00b204e9800998ecf8427e.", false),
            ("d41d8cd98f00b204e9800998ecf8427e..", false),
            ("d41d8cd98f00b204e9800998ecf8427ex", false),
            ("d41d8cd98f00b204e9800998ecf8427e.a:b", false),
            ("backup.tar", false),
            ("CACHEDIR.TAG", false),
            (".tmp-1-2", false),
        ] as [(String, Bool)])
    func entryNames(name: String, isEntry: Bool) {
        #expect(DiskCache.isEntryName(name) == isEntry)
    }

    @Test(
        "Every name the cache writes is an entry name",
        arguments: [
            "https://a.com/x.png", "https://a.com/x", "https://x.com/a.%2E%2E", "plain", "https://a.com/a.b%2Ec",
            "https://example.com/a." + String(repeating: "x", count: 222),
        ])
    func writtenNamesAreEntryNames(key: String) {
        #expect(DiskCache.isEntryName(DiskCache.fileName(forKey: key)))
    }

    @Test("A name the cache writes that vanished between the listing and its stat is not foreign: another process renamed or removed it")
    func vanishedNamesAreNotForeign() {
        let temporary = FileIO.temporaryName()
        let entry = DiskCache.fileName(forKey: "https://example.com/a.png")
        #expect(!DiskCache.isForeign(temporary, status: nil))
        #expect(!DiskCache.isForeign(entry, status: nil))
        #expect(!DiskCache.isForeign(DiskCache.sidecarDirectoryName, status: nil))
        #expect(DiskCache.isForeign("notes.txt", status: nil))
        let folder = FileIO.Status(
            isRegular: false, isDirectory: true, size: 0, allocatedSize: 0, accessDate: Date(), modificationDate: Date(), changeDate: Date())
        #expect(DiskCache.isForeign(entry, status: folder), "a folder under an entry's name is someone else's")
    }
}
