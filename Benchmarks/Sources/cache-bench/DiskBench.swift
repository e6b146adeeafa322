import Foundation
import ImagePipe
import PipelineCore

/// DiskCache hit reads (name hashing, open, read, access-date stamp) against a plain
/// `Data(contentsOf:)` of the same files, warm in the page cache.
enum DiskBench {
    static func run(seconds: Double, trials: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        print("\nDiskCache hit read vs plain Data(contentsOf:) of the same files (200 files, warm page cache, best of \(trials) x \(seconds) s)")
        print("size      DiskCache MB/s  plain MB/s  ratio")
        for size in [8 << 10, 64 << 10, 512 << 10] {
            let cache = DiskCache(directory: directory, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 0, trimInterval: nil))
            cache.removeAll()
            let keys = (0..<200).map { "https://cdn.example.com/images/photo-\($0).jpg?w=400" }
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            for key in keys { try? cache.setData(bytes, forKey: key) }
            let paths = keys.map { URL(fileURLWithPath: cache.filePath(forKey: $0)) }
            var ours = 0.0, plain = 0.0
            for _ in 0..<trials {
                ours = max(ours, measure(seconds: seconds, count: keys.count) { cache.data(forKey: keys[$0])?.count ?? 0 })
                plain = max(plain, measure(seconds: seconds, count: keys.count) { (try? Data(contentsOf: paths[$0]))?.count ?? 0 })
            }
            print(String(format: "%4d KiB  %10.0f      %8.0f    %.2fx", size >> 10, ours, plain, ours / plain))
        }
    }

    /// MB/s of `read` over `count` files in a loop for `seconds`.
    static func measure(seconds: Double, count: Int, _ read: (Int) -> Int) -> Double {
        for i in 0..<count { _ = read(i) }
        var total = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        var i = 0
        repeat {
            for _ in 0..<50 {
                total += read(i)
                i = i + 1 == count ? 0 : i + 1
            }
        } while DispatchTime.now().uptimeNanoseconds < deadline
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(total) / elapsed / 1e6
    }
}
