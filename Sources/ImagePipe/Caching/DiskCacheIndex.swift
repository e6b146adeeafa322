import Foundation
import PipelineCore

/// What a disk cache knows of its entries between trims: each file's size on disk and its
/// expiry date (the `DiskCache.EntryDate` the cache counts from), so a trim picks what to remove
/// without a `stat` of every file.
///
/// It is built once per process by one full scan, then kept in step by this process's writes and
/// removals. Other processes are seen at each trim: a listing of names (no `stat`) adds the files
/// it does not know (those are `stat`ed) and drops those gone, and every entry a trim is about to
/// remove is `stat`ed first, so one another process read or rewrote since is kept. About 120 bytes
/// of memory per entry (the hash table's slots included).
struct DiskCacheIndex {
    /// An entry's file name in a fixed-size form: the 32 hex digits as two words, the extension.
    struct Name: Hashable {
        let high: UInt64
        let low: UInt64
        let fileExtension: String

        /// Nil for a name the cache does not write (see `DiskCache.isEntryName`).
        init?(_ name: String) {
            var name = name
            guard let parsed = name.withUTF8({ Self(utf8: UnsafeRawBufferPointer($0)) }) else { return nil }
            self = parsed
        }

        /// The same from the name's bytes, as a folder listing gives them: the hex digits are read
        /// in place, and only a name with an extension makes a string.
        init?(utf8 name: UnsafeRawBufferPointer) {
            guard name.count >= 32, let high = Self.word(name, from: 0), let low = Self.word(name, from: 16) else { return nil }
            var fileExtension = ""
            if name.count > 32 {
                fileExtension = String(decoding: name[33...], as: UTF8.self)
                guard name[32] == UInt8(ascii: "."), DiskCache.isEntryName(String(decoding: name, as: UTF8.self)) else { return nil }
            }
            self.high = high
            self.low = low
            self.fileExtension = fileExtension
        }

        /// 16 lowercase hex digits at `start`, or nil.
        private static func word(_ bytes: UnsafeRawBufferPointer, from start: Int) -> UInt64? {
            var value: UInt64 = 0
            for byte in bytes[start..<start + 16] {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: return nil
                }
                value = value << 4 | UInt64(digit)
            }
            return value
        }

        var fileName: String {
            let hex = Self.hex(high) + Self.hex(low)
            return fileExtension.isEmpty ? hex : hex + "." + fileExtension
        }

        private static func hex(_ word: UInt64) -> String {
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }

    struct Record {
        /// Bytes the file occupies on disk.
        var size: Int
        /// Seconds since 1970 of the date expiry counts from.
        var date: Double
        /// The listing that last saw the file (or a write of this process since it began).
        var generation: UInt32
    }

    private(set) var records: [Name: Record] = [:]
    private(set) var totalSize = 0
    /// Bumped by each listing; records not stamped with the current one when it ends are gone.
    private(set) var generation: UInt32 = 0

    var count: Int { records.count }

    func contains(_ name: Name) -> Bool { records[name] != nil }

    mutating func set(_ name: Name, size: Int, date: Date) {
        let record = Record(size: size, date: date.timeIntervalSince1970, generation: generation)
        totalSize += size - (records.updateValue(record, forKey: name)?.size ?? 0)
    }

    mutating func remove(_ name: Name) {
        if let old = records.removeValue(forKey: name) { totalSize -= old.size }
    }

    mutating func removeAll() {
        records = [:]
        totalSize = 0
    }

    /// Starts a listing: from now on, a record is kept at its end only if the listing (or a write)
    /// stamps it.
    mutating func beginListing() { generation &+= 1 }

    /// Stamps the listed names that are known; returns those that are not.
    mutating func markListed(_ names: [Name]) -> [Name] {
        var unknown: [Name] = []
        for name in names {
            if records[name] != nil { records[name]!.generation = generation } else { unknown.append(name) }
        }
        return unknown
    }

    /// Ends a listing: drops records of files it did not see.
    mutating func endListing() {
        let current = generation
        let gone = records.compactMap { $0.value.generation == current ? nil : $0.key }
        for name in gone { remove(name) }
    }

    /// Entries dated at or before `cutoff` (seconds since 1970).
    func names(datedAtOrBefore cutoff: Double) -> [(name: Name, record: Record)] {
        records.compactMap { $0.value.date <= cutoff ? ($0.key, $0.value) : nil }
    }

    /// Every entry, oldest date first.
    func oldestFirst() -> [(name: Name, record: Record)] {
        records.map { ($0.key, $0.value) }.sorted { $0.record.date < $1.record.date }
    }
}
