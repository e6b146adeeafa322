// MemoryCache vs NSCache get/set throughput and hit ratio; DiskCache hit reads vs plain file reads;
// DiskCache at 10k–1M entries (`--disk-scale`).
// Figures print as a table; every run uses the same seeded workload.
import Dispatch
import Foundation
import ImagePipe
import PipelineCore
import Synchronization

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Double) -> Double {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Double(arguments[i + 1]) else { return fallback }
    return v
}
let secondsPerRun = option("--seconds", 1.0)
let keyCount = Int(option("--keys", 10_000))
/// Runs per configuration, alternating the two caches; the best of each counts, so a burst of other
/// load on a shared machine does not decide the ratio.
let trials = max(Int(option("--trials", 3)), 1)
/// The most threads any run uses.
let maxThreads = 2
let sharedKeys = arguments.contains("--shared-keys")

/// SplitMix64: fast, seeded, the same sequence on every run.
struct SeededRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

final class Payload: Sendable {
    let cost: Int
    init(cost: Int) { self.cost = cost }
}

/// 10,000 URL-like keys with image-like costs, and an operation stream: keys drawn from a Zipf
/// distribution (s = 0.9, popular images are asked for far more often, as in real traffic), each
/// operation a get or a set by `setShare`.
///
/// Each thread has its own copy of the keys (equal strings, separate objects), as each request in a
/// server builds its own key from its URL. Shared key objects would make every lookup on both cores
/// write the same reference counts, a cost of the harness rather than of the cache; `--shared-keys`
/// measures that case.
/// Immutable after init; NSString keys are immutable too, which Linux Foundation does not declare.
struct Workload: @unchecked Sendable {
    /// `keys[thread][index]`; the warm-up and the hit-ratio replay use copy 0.
    let keys: [[String]]
    let objcKeys: [[NSString]]
    let payloads: [Payload]
    let totalCost: Int
    /// Key index in the low 31 bits; the top bit marks a set.
    let operations: [UInt32]

    init(keyCount: Int, setShare: Double, operationCount: Int = 1 << 21) {
        var random = SeededRandom(state: 42)
        let urls = (0..<keyCount).map { "https://cdn.example.com/images/\($0 % 97)/photo-\($0).jpg?w=\(100 + $0 % 7 * 100)&q=80" }
        // Built from the bytes, so each copy has storage of its own.
        let copies = (0..<maxThreads).map { _ in sharedKeys ? urls : urls.map { String(decoding: Array($0.utf8), as: UTF8.self) } }
        keys = copies
        let objcCopies = (sharedKeys ? [urls] : copies).map { copy in copy.map { NSString(string: $0) } }
        objcKeys = (0..<maxThreads).map { objcCopies[$0 % objcCopies.count] }
        payloads = (0..<keyCount).map { _ in Payload(cost: 4_096 + Int(random.next() % 60_000)) }
        totalCost = payloads.reduce(0) { $0 + $1.cost }
        var cdf = [Double](repeating: 0, count: keyCount)
        var sum = 0.0
        for i in 0..<keyCount {
            sum += 1 / pow(Double(i + 1), 0.9)
            cdf[i] = sum
        }
        // Popularity is not key order: shuffle which key has which rank.
        var ranks = Array(0..<keyCount)
        for i in stride(from: keyCount - 1, to: 0, by: -1) { ranks.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        operations = (0..<operationCount).map { _ in
            let target = random.unit() * sum
            var low = 0, high = keyCount - 1
            while low < high {
                let mid = (low + high) / 2
                if cdf[mid] < target { low = mid + 1 } else { high = mid }
            }
            let isSet = random.unit() < setShare
            return UInt32(ranks[low]) | (isSet ? 1 << 31 : 0)
        }
    }
}

protocol BenchCache: Sendable {
    /// `copy`: whose copy of the keys (the thread's number).
    func get(_ index: Int, copy: Int) -> Bool
    func set(_ index: Int, copy: Int)
}

final class MemoryCacheAdapter: BenchCache {
    let cache: MemoryCache<String, Payload>
    let workload: Workload
    init(_ workload: Workload) {
        self.workload = workload
        cache = MemoryCache(costLimit: workload.totalCost / 2)
    }
    func get(_ index: Int, copy: Int) -> Bool { cache.value(forKey: workload.keys[copy][index]) != nil }
    func set(_ index: Int, copy: Int) { cache.set(workload.payloads[index], forKey: workload.keys[copy][index], cost: workload.payloads[index].cost) }
}

/// The other ceiling: a MemoryCache per thread, so the threads share no cache line except the
/// payload objects. No shared cache can scale better than this from 1 to 2 threads.
final class PrivateCachesAdapter: BenchCache {
    let caches: [MemoryCache<String, Payload>]
    let workload: Workload
    init(_ workload: Workload) {
        self.workload = workload
        caches = (0..<maxThreads).map { _ in MemoryCache(costLimit: workload.totalCost / 2) }
    }
    func get(_ index: Int, copy: Int) -> Bool { caches[copy].value(forKey: workload.keys[copy][index]) != nil }
    func set(_ index: Int, copy: Int) {
        caches[copy].set(workload.payloads[index], forKey: workload.keys[copy][index], cost: workload.payloads[index].cost)
    }
}

/// The reference for hit ratios: one exact LRU over the whole cost limit, keyed by key index (a
/// doubly linked list through two arrays). Single-threaded: only `replayHits` uses it.
final class ExactLRUAdapter: BenchCache, @unchecked Sendable {
    let workload: Workload
    let costLimit: Int
    var newer: [Int], older: [Int], present: [Bool]
    var newest = -1, oldest = -1, totalCost = 0
    init(_ workload: Workload) {
        self.workload = workload
        costLimit = workload.totalCost / 2
        newer = Array(repeating: -1, count: workload.payloads.count)
        older = newer
        present = Array(repeating: false, count: workload.payloads.count)
    }
    func unlink(_ i: Int) {
        if newer[i] >= 0 { older[newer[i]] = older[i] } else { newest = older[i] }
        if older[i] >= 0 { newer[older[i]] = newer[i] } else { oldest = newer[i] }
    }
    func linkAsNewest(_ i: Int) {
        newer[i] = -1
        older[i] = newest
        if newest >= 0 { newer[newest] = i } else { oldest = i }
        newest = i
    }
    func get(_ index: Int, copy: Int) -> Bool {
        guard present[index] else { return false }
        unlink(index)
        linkAsNewest(index)
        return true
    }
    func set(_ index: Int, copy: Int) {
        if present[index] {
            unlink(index)
        } else {
            present[index] = true
            totalCost += workload.payloads[index].cost
        }
        linkAsNewest(index)
        while totalCost > costLimit, oldest >= 0 {
            let victim = oldest
            unlink(victim)
            present[victim] = false
            totalCost -= workload.payloads[victim].cost
        }
    }
}

/// Does nothing but touch the key and payload as the real adapters do: the harness's own cost.
final class NullAdapter: BenchCache {
    let workload: Workload
    init(_ workload: Workload) { self.workload = workload }
    func get(_ index: Int, copy: Int) -> Bool { workload.keys[copy][index].utf8.count & 1 == 0 }
    func set(_ index: Int, copy: Int) { _ = workload.payloads[index].cost }
}

/// A locked dictionary with no eviction at all: the floor any locked hash-map cache pays.
final class LockedDictionaryAdapter: BenchCache {
    let storage = Mutex<[String: Payload]>([:])
    let workload: Workload
    init(_ workload: Workload) { self.workload = workload }
    func get(_ index: Int, copy: Int) -> Bool { storage.withLock { $0[workload.keys[copy][index]] } != nil }
    func set(_ index: Int, copy: Int) { storage.withLock { $0[workload.keys[copy][index]] = workload.payloads[index] } }
}

/// The ceiling for any cache behind this API: an immutable dictionary holding half the keys, read
/// with no lock and no recency bookkeeping, sets ignored. What is left is the harness, hashing, and
/// retaining the key and the returned value, which two threads do on the same popular objects.
final class FrozenDictionaryAdapter: BenchCache {
    let storage: [String: Payload]
    let workload: Workload
    init(_ workload: Workload) {
        self.workload = workload
        var entries: [String: Payload] = [:]
        for i in stride(from: 0, to: workload.payloads.count, by: 2) { entries[workload.keys[0][i]] = workload.payloads[i] }
        storage = entries
    }
    func get(_ index: Int, copy: Int) -> Bool { storage[workload.keys[copy][index]] != nil }
    func set(_ index: Int, copy: Int) {}
}

/// NSCache is documented thread-safe; it is not marked Sendable on Linux.
final class NSCacheAdapter: BenchCache, @unchecked Sendable {
    let cache = NSCache<NSString, Payload>()
    let workload: Workload
    init(_ workload: Workload) {
        self.workload = workload
        cache.totalCostLimit = workload.totalCost / 2
    }
    func get(_ index: Int, copy: Int) -> Bool { cache.object(forKey: workload.objcKeys[copy][index]) != nil }
    func set(_ index: Int, copy: Int) {
        cache.setObject(workload.payloads[index], forKey: workload.objcKeys[copy][index], cost: workload.payloads[index].cost)
    }
}

struct RunResult {
    /// Operations per second of wall time, all threads together.
    var operationsPerSecond: Double
    /// Operations per second of the threads' own CPU time, times the thread count: what the run
    /// would do with a free core per thread. On a machine shared with other work (as this one is),
    /// wall time mostly measures the neighbours; CPU time still counts lock spinning but not time
    /// spent descheduled.
    var operationsPerCPUSecond: Double
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// One thread's tally, handed in once when the thread is done.
struct ThreadTally: Sendable {
    var operations = 0
    var cpuSeconds = 0.0
}

func run<Cache: BenchCache>(_ cache: Cache, _ workload: Workload, threads: Int) -> RunResult {
    let ops = workload.operations
    // Warm up: one pass of sets in stream order fills the cache as traffic would.
    for op in ops.prefix(200_000) { cache.set(Int(op & 0x7FFF_FFFF), copy: 0) }
    // Behind a lock: each thread writes once, but two threads assigning into one array at once is
    // a data race on its storage (it crashed, and corrupted the hit counts, before this).
    let tallies = Mutex([ThreadTally](repeating: ThreadTally(), count: threads))
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(secondsPerRun * 1e9)
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        var position = thread * ops.count / max(threads, 1)
        var done = 0
        let cpuStart = threadCPUSeconds()
        while true {
            for _ in 0..<1024 {
                let op = ops[position]
                position = position + 1 == ops.count ? 0 : position + 1
                if op & (1 << 31) != 0 {
                    cache.set(Int(op & 0x7FFF_FFFF), copy: thread)
                } else {
                    _ = cache.get(Int(op), copy: thread)
                }
            }
            done += 1024
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        let tally = ThreadTally(operations: done, cpuSeconds: threadCPUSeconds() - cpuStart)
        tallies.withLock { $0[thread] = tally }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let all = tallies.withLock { $0 }
    let total = all.reduce(0) { $0 + $1.operations }
    let cpuRates = all.map { Double($0.operations) / max($0.cpuSeconds, 1e-9) }
    return RunResult(
        operationsPerSecond: Double(total) / elapsed,
        operationsPerCPUSecond: cpuRates.reduce(0, +))
}

/// Hits and gets over exactly one pass of the operation stream, on one thread, after the same
/// warm-up as `run`. Timed runs stop wherever the deadline falls and threads interleave, so their
/// hit ratios differ by run; this one is the same on every run and comparable between caches.
func replayHits<Cache: BenchCache>(_ cache: Cache, _ workload: Workload) -> (hits: Int, gets: Int) {
    let ops = workload.operations
    for op in ops.prefix(200_000) { cache.set(Int(op & 0x7FFF_FFFF), copy: 0) }
    var gets = 0, hits = 0
    for op in ops {
        if op & (1 << 31) != 0 {
            cache.set(Int(op & 0x7FFF_FFFF), copy: 0)
        } else {
            gets += 1
            if cache.get(Int(op), copy: 0) { hits += 1 }
        }
    }
    return (hits, gets)
}

func replayHitRatio<Cache: BenchCache>(_ cache: Cache, _ workload: Workload) -> Double {
    let (hits, gets) = replayHits(cache, workload)
    return Double(hits) / Double(max(gets, 1))
}

func format(_ value: Double) -> String {
    value >= 1e6 ? String(format: "%.2fM", value / 1e6) : String(format: "%.0fk", value / 1e3)
}

if arguments.contains("--disk-scale") {
    // DiskCache with many small entries: `--sizes 10000,100000,1000000`, under `--dir` (default /tmp).
    let sizes =
        arguments.firstIndex(of: "--sizes").flatMap { i in i + 1 < arguments.count ? arguments[i + 1] : nil }
        .map { $0.split(separator: ",").compactMap { Int($0) } } ?? [10_000, 100_000, 1_000_000]
    let root = arguments.firstIndex(of: "--dir").flatMap { i in i + 1 < arguments.count ? arguments[i + 1] : nil } ?? "/tmp"
    DiskScaleBench.run(
        sizes: sizes, root: URL(fileURLWithPath: root).appendingPathComponent("imagepipe-disk-scale-\(getpid())"),
        lookups: Int(option("--lookups", 20_000)))
    exit(0)
}

if arguments.contains("--profile-memorycache") {
    // Only MemoryCache (90/10, or `--set-share 0.5`), for `perf record` and quick A/B runs; `--threads 2` for contention,
    // `--hit-ratio` to print its hit ratio and an exact LRU's over one pass of the stream,
    // `--replay-only` for just that pass (a fixed amount of work; `--passes N` repeats it on new
    // caches and prints the best pass's CPU time per operation, steadier than a timed run's rate),
    // `--setup-only` for none (what to subtract from a replay's instruction count).
    let threads = min(max(Int(option("--threads", 1)), 1), maxThreads)
    let workload = Workload(keyCount: keyCount, setShare: option("--set-share", 0.1))
    if arguments.contains("--setup-only") { exit(0) }
    if arguments.contains("--replay-only") {
        // One thread, for instruction counts under callgrind and CPU time per operation.
        var best = Double.infinity
        for _ in 0..<max(Int(option("--passes", 1)), 1) {
            let start = threadCPUSeconds()
            let hits = replayHits(MemoryCacheAdapter(workload), workload)
            best = min(best, threadCPUSeconds() - start)
            print("\(hits.hits) hits of \(hits.gets) gets")
        }
        print(String(format: "best pass: %.1f ns per operation", best * 1e9 / Double(workload.operations.count + 200_000)))
        exit(0)
    }
    let result = run(MemoryCacheAdapter(workload), workload, threads: threads)
    if arguments.contains("--hit-ratio") {
        let ours = replayHits(MemoryCacheAdapter(workload), workload)
        let exact = replayHits(ExactLRUAdapter(workload), workload)
        print(
            String(
                format: "hit ratio %.5f, exact LRU %.5f (one pass of the stream: %d and %d hits of %d gets)",
                Double(ours.hits) / Double(ours.gets), Double(exact.hits) / Double(exact.gets), ours.hits, exact.hits, ours.gets))
    }
    guard threads == 1 else {
        print(format(result.operationsPerSecond), "ops/s at \(threads) threads;", format(result.operationsPerCPUSecond), "ops per CPU-s")
        exit(0)
    }
    let harness = run(NullAdapter(workload), workload, threads: 1)
    let floor = run(LockedDictionaryAdapter(workload), workload, threads: 1)
    print(
        format(result.operationsPerCPUSecond), "ops per CPU-s; harness alone", format(harness.operationsPerCPUSecond),
        "; locked Dictionary without eviction", format(floor.operationsPerCPUSecond))
    exit(0)
}

print("MemoryCache vs NSCache: \(keyCount) URL keys, Zipf(0.9) popularity, cost limit = half the total cost, best of \(trials) x \(secondsPerRun) s")
print("active processors: \(ProcessInfo.processInfo.activeProcessorCount)")
print("mix    threads  MemoryCache ops/s  NSCache ops/s   ratio  | per CPU-s: MemoryCache  NSCache   ratio  | hit ratio: MemoryCache  NSCache  exact LRU")
for (name, setShare) in [("90/10", 0.1), ("50/50", 0.5)] {
    let workload = Workload(keyCount: keyCount, setShare: setShare)
    let hitRatios = (
        ours: replayHitRatio(MemoryCacheAdapter(workload), workload),
        theirs: replayHitRatio(NSCacheAdapter(workload), workload),
        exact: replayHitRatio(ExactLRUAdapter(workload), workload)
    )
    for threads in [1, 2] {
        var ours = RunResult(operationsPerSecond: 0, operationsPerCPUSecond: 0), theirs = ours
        for _ in 0..<trials {
            let a = run(MemoryCacheAdapter(workload), workload, threads: threads)
            ours.operationsPerSecond = max(ours.operationsPerSecond, a.operationsPerSecond)
            ours.operationsPerCPUSecond = max(ours.operationsPerCPUSecond, a.operationsPerCPUSecond)
            let b = run(NSCacheAdapter(workload), workload, threads: threads)
            theirs.operationsPerSecond = max(theirs.operationsPerSecond, b.operationsPerSecond)
            theirs.operationsPerCPUSecond = max(theirs.operationsPerCPUSecond, b.operationsPerCPUSecond)
        }
        let line = [
            name.padding(toLength: 7, withPad: " ", startingAt: 0),
            "\(threads)".padding(toLength: 9, withPad: " ", startingAt: 0),
            format(ours.operationsPerSecond).padding(toLength: 19, withPad: " ", startingAt: 0),
            format(theirs.operationsPerSecond).padding(toLength: 15, withPad: " ", startingAt: 0),
            String(format: "%5.1fx", ours.operationsPerSecond / theirs.operationsPerSecond),
            "  |            " + format(ours.operationsPerCPUSecond).padding(toLength: 12, withPad: " ", startingAt: 0),
            format(theirs.operationsPerCPUSecond).padding(toLength: 8, withPad: " ", startingAt: 0),
            String(format: "%5.1fx", ours.operationsPerCPUSecond / theirs.operationsPerCPUSecond),
            String(format: "  |             %.5f  %.5f  %.5f", hitRatios.ours, hitRatios.theirs, hitRatios.exact),
        ]
        print(line.joined())
    }
}

do {
    let workload = Workload(keyCount: keyCount, setShare: 0.1)
    let rates = [1, 2].map { threads in
        (0..<trials).map { _ in run(FrozenDictionaryAdapter(workload), workload, threads: threads).operationsPerSecond }.max() ?? 0
    }
    print(
        "ceiling, 90/10: an immutable Dictionary read with no lock and no LRU work (sets ignored): "
            + "\(format(rates[0])) ops/s at 1 thread, \(format(rates[1])) at 2")
    let privateRate = (0..<trials).map { _ in run(PrivateCachesAdapter(workload), workload, threads: 2).operationsPerSecond }.max() ?? 0
    print(
        "ceiling, 90/10: two private MemoryCaches, one per thread, nothing shared but the payloads and keys: "
            + "\(format(privateRate)) ops/s at 2 threads")
}

DiskBench.run(seconds: secondsPerRun, trials: trials)
