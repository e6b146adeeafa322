import Foundation
import ImagePipe
import Logging
import PipelineCore
import Synchronization

/// DiskCache with many small entries (`--disk-scale`): at each size, a store, a lookup (hits and
/// misses), the trim that builds the index in a fresh process, a periodic trim with nothing to do,
/// a trim that evicts down to half the limit, and how often writes trigger trims.
enum DiskScaleBench {
    /// Counts the cache's "trimmed" debug messages and keeps the last one's duration.
    final class TrimCounter: Sendable {
        let count = Atomic<Int>(0)

        var logger: Logger {
            var logger = Logger(label: "disk-scale") { _ in Handler(counter: self) }
            logger.logLevel = .debug
            return logger
        }

        struct Handler: LogHandler {
            let counter: TrimCounter
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                if event.message.description == "trimmed the disk cache" { counter.count.add(1, ordering: .relaxed) }
            }
        }
    }

    static let entryBytes = 100

    static func key(_ i: Int) -> String { "https://cdn.example.com/thumbs/\(i)/photo.jpg?w=64" }

    static func seconds(_ work: () -> Void) -> Double { timed(work).wall }

    /// Wall-clock and this thread's CPU seconds (on a shared machine the first measures the
    /// neighbours too).
    static func timed(_ work: () -> Void) -> (wall: Double, cpu: Double) {
        func cpuNow() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = DispatchTime.now().uptimeNanoseconds, cpuStart = cpuNow()
        work()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuNow() - cpuStart)
    }

    static func configuration(sizeLimit: Int, logger: Logger? = nil) -> DiskCache.Configuration {
        var configuration = DiskCache.Configuration(maxAge: nil, sizeLimit: sizeLimit, trimInterval: nil)
        if let logger { configuration.logger = logger }
        return configuration
    }

    static func run(sizes: [Int], root: URL, lookups: Int) {
        print("DiskCache at scale: \(entryBytes)-byte entries (one 4 KiB block each), \(lookups) random lookups per figure")
        print("Times are wall-clock seconds / CPU seconds of the benchmark's thread.")
        print("entries    store µs        hit µs        miss µs       index build s  idle trim s  evicting trim s (entries before → after)  trims per limit/2 written  peak RSS MB")
        for count in sizes {
            let directory = root.appendingPathComponent("scale-\(count)")
            try? FileManager.default.removeItem(at: directory)
            defer { try? FileManager.default.removeItem(at: directory) }
            let bytes = Data(repeating: 0x5A, count: entryBytes)

            // Fill without limit (no trims), as a long-running server would have over time.
            let filler = DiskCache(directory: directory, configuration: configuration(sizeLimit: 0))
            for i in 0..<count { try? filler.setData(bytes, forKey: key(i)) }
            let block = 4096

            // Stores of new keys into a full cache (no trim triggered: no limit).
            let storeCount = 2000
            let storeTime = timed { for i in 0..<storeCount { try? filler.setData(bytes, forKey: key(count + i)) } }
            for i in 0..<storeCount { filler.removeData(forKey: key(count + i)) }

            // Lookups: random hits, then misses, best of 3 passes (the first warms the names' path).
            var generator = SystemRandomNumberGenerator()
            let hitKeys = (0..<lookups).map { _ in key(Int.random(in: 0..<count, using: &generator)) }
            let missKeys = (0..<lookups).map { key(count * 2 + $0) }
            let reader = DiskCache(directory: directory, configuration: configuration(sizeLimit: 0))
            var hit = (wall: Double.infinity, cpu: Double.infinity), miss = hit
            for _ in 0..<3 {
                let h = timed { for k in hitKeys { precondition(reader.data(forKey: k) != nil) } }
                let m = timed { for k in missKeys { precondition(reader.data(forKey: k) == nil) } }
                hit = (min(hit.wall, h.wall), min(hit.cpu, h.cpu))
                miss = (min(miss.wall, m.wall), min(miss.cpu, m.cpu))
            }

            // A fresh process with a limit just above the cache: its first trim builds the index.
            let counter = TrimCounter()
            let limit = (count + count / 50) * block
            let cache = DiskCache(directory: directory, configuration: configuration(sizeLimit: limit, logger: counter.logger))
            let build = timed { cache.removeExpiredAndTrim() }
            let idle = timed { cache.removeExpiredAndTrim() }

            // Writes until one crosses the limit: that write runs the evicting trim.
            let before = counter.count.load(ordering: .relaxed)
            var next = count
            var evicting = (wall: 0.0, cpu: 0.0)
            while counter.count.load(ordering: .relaxed) == before {
                let t = timed { try? cache.setData(bytes, forKey: key(next)) }
                if t.wall > evicting.wall { evicting = t }
                next += 1
            }
            let entriesAfter = cache.totalCount
            // Then limit / 2 more bytes and a bit: at most one more trim.
            let trimsBefore = counter.count.load(ordering: .relaxed)
            let halfLimitWrites = limit / 2 / block + 16
            for i in 0..<halfLimitWrites { try? cache.setData(bytes, forKey: key(next + i)) }
            let trimsPerHalfLimit = counter.count.load(ordering: .relaxed) - trimsBefore

            func perOp(_ t: (wall: Double, cpu: Double), _ n: Int) -> String {
                String(format: "%5.1f / %5.1f", t.wall / Double(n) * 1e6, t.cpu / Double(n) * 1e6)
            }
            let times = String(
                format: "%6.2f / %5.2f  %5.2f / %5.2f  %6.2f / %5.2f", build.wall, build.cpu, idle.wall, idle.cpu,
                evicting.wall, evicting.cpu)
            print(
                String(format: "%9d", count) + "  \(perOp(storeTime, storeCount))  \(perOp(hit, lookups))  \(perOp(miss, lookups))  "
                    + times + " (\(next) → \(entriesAfter))  \(trimsPerHalfLimit)  \(peakRSSMegabytes())")
        }
    }

    /// VmHWM of this process.
    static func peakRSSMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}
