import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Disk cache: expiry date type, read-only folders, trims at scale")
struct DiskCacheExpiryTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func cache(
        _ expiryDate: DiskCache.EntryDate = .access, maxAge: TimeInterval? = nil, sizeLimit: Int = 0,
        additional: [URL] = [], at directory: URL? = nil, clock: TestClock? = nil
    ) -> DiskCache {
        var configuration = DiskCache.Configuration(
            maxAge: maxAge, sizeLimit: sizeLimit, trimInterval: nil, accessDateResolution: 0, clock: (clock ?? self.clock).cacheClock)
        configuration.expiryDate = expiryDate
        configuration.additionalDirectories = additional
        return DiskCache(directory: directory ?? self.directory.url, configuration: configuration)
    }

    @Test("Expiry by modification date: a read does not renew an entry; by access date it does")
    func modificationDate() throws {
        for (type, survives) in [(DiskCache.EntryDate.modification, false), (.access, true)] {
            let cache = cache(type, maxAge: 100)
            try cache.setData(Data([1]), forKey: "read")
            clock.advance(by: 60)
            #expect(cache.data(forKey: "read") != nil)
            clock.advance(by: 60)  // written 120 s ago, read 60 s ago
            cache.removeExpiredAndTrim()
            #expect(cache.containsData(forKey: "read") == survives, "\(type)")
            cache.removeAll()
        }
    }

    @Test(
        "Expiry by creation or change date counts from the file system's dates, not the stamps the cache writes",
        arguments: DiskCache.EntryDate.allCases)
    func fileSystemDates(type: DiskCache.EntryDate) throws {
        // The cache's clock runs ten days ahead: it stamps access and modification dates in the
        // future, while the kernel sets creation and change dates to now.
        let ahead = TestClock(Date().addingTimeInterval(10 * 86400))
        let cache = cache(type, maxAge: 5 * 86400, clock: ahead)
        try cache.setData(Data([1]), forKey: "k")
        let hasBirthTime = Statx.creationDate(cache.filePath(forKey: "k")) != nil
        cache.removeExpiredAndTrim()
        let expired = type == .change || (type == .creation && hasBirthTime)
        #expect(cache.containsData(forKey: "k") == !expired)
    }

    @Test("Lookups fall back to read-only folders; nothing there is written, stamped, trimmed or removed")
    func additionalDirectories() throws {
        let shipped = TemporaryDirectory("shipped")
        let writer = cache(at: shipped.url)
        try writer.setData(Data("shipped".utf8), forKey: "https://a.example/1.png", extendedData: Data("facts".utf8))
        let shippedFile = writer.filePath(forKey: "https://a.example/1.png")
        let before = try #require(FileIO.status(shippedFile))

        let cache = cache(additional: [shipped.url])
        clock.advance(by: 3600)
        #expect(cache.data(forKey: "https://a.example/1.png") == Data("shipped".utf8))
        #expect(cache.containsData(forKey: "https://a.example/1.png"))
        #expect(cache.extendedData(forKey: "https://a.example/1.png") == Data("facts".utf8))
        #expect(cache.data(forKey: "https://a.example/2.png") == nil)
        // Writes go to the cache's own folder, and its own entry wins from then on.
        try cache.setData(Data("own".utf8), forKey: "https://a.example/1.png")
        #expect(cache.filePath(forKey: "https://a.example/1.png").hasPrefix(directory.path))
        #expect(cache.data(forKey: "https://a.example/1.png") == Data("own".utf8))
        cache.removeData(forKey: "https://a.example/1.png")
        cache.removeAll()
        let trimming = self.cache(maxAge: 0, sizeLimit: 1, additional: [shipped.url])
        try trimming.setData(Data("own".utf8), forKey: "https://a.example/3.png")
        trimming.removeExpiredAndTrim()
        #expect(trimming.data(forKey: "https://a.example/3.png") == nil)
        #expect(cache.data(forKey: "https://a.example/1.png") == Data("shipped".utf8))
        let after = try #require(FileIO.status(shippedFile))
        #expect(after.accessDate == before.accessDate && after.modificationDate == before.modificationDate)
        #expect(shipped.fileNames.count == 1)
    }

    @Test("Writes past the size limit trim at most once per half the limit written")
    func trimFrequency() throws {
        let probe = cache()
        try probe.setData(Data(count: 4000), forKey: "probe")
        let block = try #require(FileIO.status(probe.filePath(forKey: "probe"))).allocatedSize
        probe.removeAll()
        let limit = block * 20
        let cache = cache(sizeLimit: limit)
        var written = 0
        for i in 0..<200 {
            try cache.setData(Data(count: 4000), forKey: "k\(i)")
            written += block
            clock.advance(by: 1)
        }
        let trims = cache.trimCount.load(ordering: .relaxed)
        // The first write builds the index (one trim); after that, one per limit / 2 written.
        #expect(trims >= 2 && trims <= 1 + written / (limit / 2), "\(trims) trims for \(written) bytes, limit \(limit)")
        #expect(cache.totalSize <= limit)
    }

    @Test("The size trim keeps an entry another process read since this one indexed it, and counts that process's writes")
    func otherProcesses() throws {
        let probe = cache()
        try probe.setData(Data(count: 4000), forKey: "probe")
        let block = try #require(FileIO.status(probe.filePath(forKey: "probe"))).allocatedSize
        probe.removeAll()
        let mine = cache(sizeLimit: block * 12)
        for i in 0..<10 {
            try mine.setData(Data(count: 4000), forKey: "k\(i)")  // indexed, k0 oldest
            clock.advance(by: 1)
        }
        let other = cache()
        #expect(other.data(forKey: "k0") != nil)  // k0 is now recently read
        try other.setData(Data(count: 4000), forKey: "theirs")
        for i in 10..<13 {
            clock.advance(by: 1)
            try mine.setData(Data(count: 4000), forKey: "k\(i)")
        }
        // 14 blocks > 12: down below 6, oldest first as checked on disk. Had the trim not counted
        // "theirs", k9 would have stayed; had it trusted its index, k0 would have gone.
        #expect(mine.containsData(forKey: "k0"))
        #expect(mine.containsData(forKey: "theirs"))
        for i in 1..<10 { #expect(!mine.containsData(forKey: "k\(i)"), "k\(i)") }
        #expect(mine.totalCount == 5)
    }

    @Test(
        "Index names round-trip to the cache's file names; other names are not indexed",
        arguments: ["d41d8cd98f00b204e9800998ecf8427e", "0123456789abcdef0123456789abcdef.png", "00000000000000000000000000000000.a.b"])
    func indexNames(name: String) throws {
        #expect(try #require(DiskCacheIndex.Name(name)).fileName == name)
        #expect(DiskCacheIndex.Name("D41D8CD98F00B204E9800998ECF8427E") == nil)
        #expect(DiskCacheIndex.Name(".tmp-1-1") == nil)
        #expect(DiskCacheIndex.Name(DiskCache.tagFileName) == nil)
    }
}
