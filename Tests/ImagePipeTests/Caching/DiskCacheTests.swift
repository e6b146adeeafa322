import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Disk cache")
struct DiskCacheTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func cache(maxAge: TimeInterval? = 7 * 24 * 3600, sizeLimit: Int = 0) -> DiskCache {
        DiskCache(
            directory: directory.url,
            configuration: DiskCache.Configuration(
                maxAge: maxAge, sizeLimit: sizeLimit, trimInterval: nil, accessDateResolution: 0, clock: clock.cacheClock))
    }

    // MARK: File names

    @Test(
        "File names are the key's MD5 plus the URL path's extension, as SDWebImage's tests expect",
        arguments: [
            ("https://example.com/x.jpg?aid=123&b=4", "jpg"),
            ("https://maps.googleapis.com/maps/api/staticmap?center=48.8566,2.3522&format=png&maptype=roadmap&scale=2&size=375x200&zoom=15", nil),
            ("https://test.com/a1ec3f4c7d9de0e0e03a5a14e0f5d28c.jpg00%00", "jpg00"),
            ("https://example.com/image.png", "png"),
            ("https://example.com/image", nil),
            ("https://example.com/photo.jpg:large", "jpglarge"),
            ("plain-key", nil),
        ] as [(String, String?)])
    func fileNames(key: String, ext: String?) {
        let name = DiskCache.fileName(forKey: key)
        let hash = MD5.hex(key)
        #expect(name == (ext.map { hash + "." + $0 } ?? hash))
    }

    @Test("An extension longer than 222 bytes is dropped")
    func overlongExtension() {
        let longest = "https://example.com/a." + String(repeating: "x", count: 222)
        let tooLong = "https://example.com/a." + String(repeating: "x", count: 223)
        #expect(DiskCache.fileName(forKey: longest).count == 255)
        #expect(DiskCache.fileName(forKey: tooLong) == MD5.hex(tooLong))
    }

    @Test(
        "Keys that look like paths never name a file outside the cache directory",
        arguments: [
            "../../../etc/passwd", "/etc/passwd", "a/../../b.png", "https://x.com/..%2F..%2Fevil", "..", ".",
            "https://x.com/a.%2E%2E", "file:///tmp/../../root/.ssh/id_rsa", "x.\0/../../y", "https://x.com/a./",
        ])
    func pathTraversal(key: String) throws {
        let cache = cache()
        try cache.setData(Data("v".utf8), forKey: key)
        let path = cache.filePath(forKey: key)
        #expect((path as NSString).deletingLastPathComponent == directory.path)
        #expect(!DiskCache.fileName(forKey: key).contains("/"))
        #expect(cache.data(forKey: key) == Data("v".utf8))
        #expect(directory.fileNames == [DiskCache.fileName(forKey: key)])
    }

    @Test(
        "Keys Foundation's NSString path methods trap on get a file name and store like any other",
        arguments: [
            "a//é", "//\u{FFFD}", "a//// //", ". ///b//", "x//é.png",
        ])
    func keysNSStringTrapsOn(key: String) throws {
        let cache = cache()
        try cache.setData(Data("v".utf8), forKey: key)
        #expect(DiskCache.fileName(forKey: key).hasPrefix(MD5.hex(key)))
        #expect(cache.data(forKey: key) == Data("v".utf8))
    }

    // MARK: Entries

    @Test("Stored bytes read back; a missing key is nil; remove and removeAll empty it")
    func roundTrip() throws {
        let cache = cache()
        #expect(cache.data(forKey: "k") == nil)
        try cache.setData(Data([1, 2, 3]), forKey: "https://a.com/1.png")
        try cache.setData(Data([4, 5]), forKey: "https://a.com/2.png")
        #expect(cache.data(forKey: "https://a.com/1.png") == Data([1, 2, 3]))
        #expect(cache.containsData(forKey: "https://a.com/2.png"))
        #expect(cache.totalCount == 2)
        #expect(cache.totalSize == 5)
        cache.removeData(forKey: "https://a.com/1.png")
        #expect(!cache.containsData(forKey: "https://a.com/1.png"))
        cache.removeAll()
        #expect(cache.totalCount == 0)
        try cache.setData(Data([9]), forKey: "again")
        #expect(cache.data(forKey: "again") == Data([9]))
    }

    @Test("A file stored without extension (older layout) is still found")
    func legacyNameWithoutExtension() throws {
        let cache = cache()
        let key = "https://a.com/legacy.png"
        try Data("old".utf8).write(to: directory.url.appendingPathComponent(MD5.hex(key)))
        #expect(cache.data(forKey: key) == Data("old".utf8))
        #expect(cache.containsData(forKey: key))
        cache.removeData(forKey: key)
        #expect(directory.fileNames.isEmpty)
    }

    @Test("Writes are atomic: the directory only ever holds whole entries, and no temporary file stays")
    func atomicWrites() async throws {
        let cache = cache()
        let big = Data(repeating: 0xAB, count: 2 << 20), small = Data(repeating: 0xCD, count: 1000)
        try cache.setData(small, forKey: "k")
        let torn = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for i in 0..<40 { try? cache.setData(i % 2 == 0 ? big : small, forKey: "k") }
                return 0
            }
            group.addTask {
                var torn = 0
                for _ in 0..<400 {
                    if let data = cache.data(forKey: "k"), data != big, data != small { torn += 1 }
                }
                return torn
            }
            return await group.reduce(0, +)
        }
        #expect(torn == 0)
        let all = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(all.filter { $0.hasPrefix(".tmp") }.isEmpty)
        #expect(directory.fileNames.count == 1)
    }

    @Test("A symlink planted under an entry's name is not followed")
    func symlinkNotFollowed() throws {
        let cache = cache()
        let outside = directory.url.deletingLastPathComponent().appendingPathComponent("secret")
        try Data("secret".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: cache.filePath(forKey: "k"), withDestinationPath: outside.path)
        #expect(cache.data(forKey: "k") == nil)
        #expect(cache.totalCount == 0)
    }

    @Test("Files larger than the entry size limit are not read")
    func maxEntrySize() throws {
        let cache = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(maxEntrySize: 10, trimInterval: nil))
        try cache.setData(Data(count: 11), forKey: "big")
        #expect(cache.data(forKey: "big") == nil)
    }

    // MARK: Expiry and trimming

    @Test("Entries not accessed for maxAge are removed; reading one renews it (access date, not modification)")
    func expiryByAccessDate() throws {
        let cache = cache(maxAge: 100)
        try cache.setData(Data([1]), forKey: "read")
        try cache.setData(Data([2]), forKey: "unread")
        clock.advance(by: 60)
        #expect(cache.data(forKey: "read") != nil)  // access date now +60
        clock.advance(by: 60)  // unread: 120 s old, read: 60 s
        cache.removeExpiredAndTrim()
        #expect(cache.containsData(forKey: "read"))
        #expect(!cache.containsData(forKey: "unread"))
        let zero = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(maxAge: 0, sizeLimit: 0, trimInterval: nil, clock: clock.cacheClock))
        zero.removeExpiredAndTrim()
        #expect(zero.totalCount == 0)
    }

    @Test("A hit restamps the access date only when it is older than the resolution")
    func accessDateResolution() throws {
        let cache = DiskCache(
            directory: directory.url,
            configuration: DiskCache.Configuration(
                trimInterval: nil, accessDateResolution: 60, clock: clock.cacheClock))
        try cache.setData(Data([1]), forKey: "k")
        let written = try #require(FileIO.status(cache.filePath(forKey: "k"))).accessDate
        clock.advance(by: 30)
        _ = cache.data(forKey: "k")
        #expect(FileIO.status(cache.filePath(forKey: "k"))?.accessDate == written)
        clock.advance(by: 30)
        _ = cache.data(forKey: "k")
        #expect(FileIO.status(cache.filePath(forKey: "k"))?.accessDate == clock.now)
    }

    @Test("Over the size limit, the least recently accessed go first, down to half the limit")
    func trimOldestAccessFirst() throws {
        // 4 KiB blocks: each 4,000-byte entry occupies one block.
        let cache = cache(maxAge: nil, sizeLimit: 0)
        for i in 0..<10 {
            try cache.setData(Data(count: 4000), forKey: "k\(i)")
            clock.advance(by: 1)
        }
        _ = cache.data(forKey: "k0")  // k0 is now the most recently accessed
        let block = FileIO.status(cache.filePath(forKey: "k0"))!.allocatedSize
        let limited = DiskCache(
            directory: directory.url,
            configuration: DiskCache.Configuration(
                maxAge: nil, sizeLimit: block * 8, trimInterval: nil, accessDateResolution: 0, clock: clock.cacheClock))
        limited.removeExpiredAndTrim()
        // 10 blocks > 8: trim below 4 blocks, oldest access first: k1…k7 go, k8, k9, k0 stay.
        #expect(limited.totalCount == 3)
        for key in ["k0", "k8", "k9"] { #expect(limited.containsData(forKey: key), "\(key)") }
    }

    @Test("A write that crosses the size limit trims at once, without anyone calling removeExpiredAndTrim")
    func trimWhileRunning() throws {
        let probe = cache()
        try probe.setData(Data(count: 4000), forKey: "probe")
        let block = FileIO.status(probe.filePath(forKey: "probe"))!.allocatedSize
        probe.removeAll()
        let cache = cache(maxAge: nil, sizeLimit: block * 10)
        for i in 0..<10 {
            try cache.setData(Data(count: 4000), forKey: "k\(i)")
            clock.advance(by: 1)
        }
        #expect(cache.totalCount == 10)
        try cache.setData(Data(count: 4000), forKey: "k10")
        #expect(cache.totalCount < 5)
        #expect(cache.containsData(forKey: "k10"))
        #expect(!cache.containsData(forKey: "k0"))
    }

    @Test("The periodic trim runs on its own, and can be turned off")
    func periodicTrim() async throws {
        let cache = DiskCache(
            directory: directory.url,
            configuration: DiskCache.Configuration(
                maxAge: 0, sizeLimit: 0, trimInterval: 0.05, clock: clock.cacheClock))
        try cache.setData(Data([1]), forKey: "k")
        clock.advance(by: 1)
        for _ in 0..<200 where cache.totalCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cache.totalCount == 0)
        cache.stopTimer()
        try cache.setData(Data([1]), forKey: "k")
        clock.advance(by: 1)
        try await Task.sleep(for: .milliseconds(150))
        #expect(cache.totalCount == 1)
    }

    @Test("Temporary files of dead writers are swept once stale, younger ones are left to their writer")
    func staleTemporaryFiles() throws {
        let cache = cache()
        let stale = directory.url.appendingPathComponent(".tmp-1-1"), fresh = directory.url.appendingPathComponent(".tmp-2-2")
        try Data([1]).write(to: stale)
        try Data([2]).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: stale.path)
        #expect(cache.totalCount == 0)  // never counted as entries
        cache.removeExpiredAndTrim()
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }

    // MARK: Extended data

    @Test("Extended data round-trips with its entry, is replaced by a plain write, and can be removed")
    func extendedData() throws {
        let cache = cache()
        try cache.setData(Data([1]), forKey: "k", extendedData: Data("etag-1".utf8))
        #expect(cache.extendedData(forKey: "k") == Data("etag-1".utf8))
        try cache.setExtendedData(Data("etag-2".utf8), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == Data("etag-2".utf8))
        try cache.setExtendedData(nil, forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        try cache.setData(Data([1]), forKey: "k", extendedData: Data("x".utf8))
        try cache.setData(Data([2]), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        #expect(cache.extendedData(forKey: "absent") == nil)
    }

    @Test("Extended data too large for an xattr goes to a hidden sidecar, removed with its entry")
    func sidecarFallback() throws {
        let cache = cache()
        // ext4 and tmpfs refuse xattr values over one block; 200 KiB forces the sidecar everywhere.
        let large = Data(repeating: 7, count: 200 * 1024)
        try cache.setData(Data([1]), forKey: "k", extendedData: large)
        #expect(cache.extendedData(forKey: "k") == large)
        #expect(cache.totalCount == 1)
        cache.removeData(forKey: "k")
        let sidecars = (try? FileManager.default.contentsOfDirectory(atPath: cache.sidecarDirectory)) ?? []
        #expect(sidecars.filter { !$0.hasPrefix(".") }.isEmpty)
    }
}
