import Foundation
import ImagePipe
import PipelineCore

/// Arbitrary keys through the disk cache's naming: every name must be a single plain file name
/// (MD5 hex, optionally `.` and an extension) of at most 255 bytes, whatever the key. The cache key
/// formats that build keys from keys (thumbnail, transformer) get the same keys. Some inputs also
/// go to disk: the entry is written, read back by its key, found again by the scans that read the
/// directory's names back (`totalCount`, `removeExpiredAndTrim`, `removeAll`), and removed.
enum DiskCacheNameFuzzing {
    /// One cache per process, in `FUZZ_SCRATCH` when set (the runner points it into the build
    /// folder), else in the temporary directory.
    static let cache: DiskCache = {
        let base =
            ProcessInfo.processInfo.environment["FUZZ_SCRATCH"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("imagepipe-fuzz-disk-cache-\(getpid())")
        return DiskCache(directory: directory, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 0, trimInterval: nil))
    }()

    static func run(_ data: Data) throws(FuzzViolation) {
        var random = FuzzRandom(data)
        let key = String(decoding: data, as: UTF8.self)
        let name = DiskCache.fileName(forKey: key)
        try checkName(name, key: key)
        let size = ImageSize(width: random.int(in: 1...8192), height: random.int(in: 1...8192))
        let thumbnailed = ImageCacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: random.bool())
        try checkName(DiskCache.fileName(forKey: thumbnailed), key: thumbnailed)
        let transformed = ImageCacheKey.transformed(key, transformerKey: "SDImageFlippingTransformer(1,0)")
        try checkName(DiskCache.fileName(forKey: transformed), key: transformed)
        if random.oneIn(4) { try roundTrip(key, name: name, random: &random) }
    }

    static func checkName(_ name: String, key: String) throws(FuzzViolation) {
        let bytes = Array(name.utf8)
        let hex = bytes.prefix(32)
        let isHash = hex.count == 32 && hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        let rest = bytes.dropFirst(32)
        let restIsExtension = rest.isEmpty || (rest.first == UInt8(ascii: ".") && rest.count > 1)
        guard isHash, restIsExtension, bytes.count <= 255, !bytes.contains(UInt8(ascii: "/")), !bytes.contains(0) else {
            throw FuzzViolation("file name \(name.debugDescription) for key \(key.debugDescription)")
        }
    }

    static func roundTrip(_ key: String, name: String, random: inout FuzzRandom) throws(FuzzViolation) {
        let payload = Data("entry".utf8) + Data(key.utf8.prefix(32))
        let extended = random.bool() ? Data("extended".utf8) : nil
        let path = cache.filePath(forKey: key)
        guard (path as NSString).lastPathComponent == name,
            (path as NSString).deletingLastPathComponent == cache.directory.path
        else {
            throw FuzzViolation("entry path \(path.debugDescription) is not \(name.debugDescription) in \(cache.directory.path)")
        }
        do {
            try cache.setData(payload, forKey: key, extendedData: extended)
        } catch {
            throw FuzzViolation("setData failed for key \(key.debugDescription): \(error)")
        }
        guard cache.data(forKey: key) == payload, cache.containsData(forKey: key) else {
            throw FuzzViolation("entry for key \(key.debugDescription) not read back")
        }
        guard cache.extendedData(forKey: key) == extended else {
            throw FuzzViolation("extended data for key \(key.debugDescription) not read back")
        }
        guard cache.totalCount >= 1 else { throw FuzzViolation("a scan of the directory misses \(name.debugDescription)") }
        if random.oneIn(16) { cache.removeExpiredAndTrim() }
        if random.oneIn(2) {
            cache.removeData(forKey: key)
            guard !cache.containsData(forKey: key) else {
                throw FuzzViolation("entry for key \(key.debugDescription) survives removeData")
            }
        }
        if random.oneIn(16) {
            cache.removeAll()
            guard cache.totalCount == 0 else { throw FuzzViolation("\(cache.totalCount) entries survive removeAll") }
        }
    }
}
