import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// The watcher reads files shaped like the kernel's, written by the test: never the real cgroup.
@Suite("Memory pressure watcher")
struct MemoryPressureWatcherTests {
    let directory = TemporaryDirectory()

    func events(high: Int, max: Int, oom: Int = 0) -> String {
        "low 0\nhigh \(high)\nmax \(max)\noom \(oom)\noom_kill 0\noom_group_kill 0\n"
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }

    @Test("cgroup memory.events: a rise of high is moderate, of max or oom critical; no rise, nothing")
    func cgroupEvents() throws {
        let path = try write(events(high: 3, max: 1), to: "memory.events")
        let seen = Mutex<[MemoryPressure]>([])
        let watcher = MemoryPressureWatcher(source: .cgroupEvents(path: path)) { level in seen.withLock { $0.append(level) } }
        #expect(watcher.check() == nil, "the first reading only records the counters")
        #expect(watcher.check() == nil)
        _ = try write(events(high: 4, max: 1), to: "memory.events")
        #expect(watcher.check() == .moderate)
        #expect(watcher.check() == nil)
        _ = try write(events(high: 9, max: 2), to: "memory.events")
        #expect(watcher.check() == .critical)
        _ = try write(events(high: 9, max: 2, oom: 1), to: "memory.events")
        #expect(watcher.check() == .critical)
        #expect(seen.withLock { $0 } == [.moderate, .critical, .critical])
    }

    @Test("PSI memory.pressure: full avg10 over its threshold is critical, some avg10 over its own moderate")
    func pressureStall() throws {
        func psi(some: Double, full: Double) -> String {
            "some avg10=\(some) avg60=1.00 avg300=0.50 total=123456\nfull avg10=\(full) avg60=0.00 avg300=0.00 total=789\n"
        }
        let path = try write(psi(some: 0.5, full: 0), to: "memory.pressure")
        let watcher = MemoryPressureWatcher(source: .pressureStall(path: path, moderate: 10, critical: 5)) { _ in }
        #expect(watcher.check() == nil)
        _ = try write(psi(some: 12.5, full: 1), to: "memory.pressure")
        #expect(watcher.check() == .moderate)
        #expect(watcher.check() == .moderate, "reported at every reading while it lasts")
        _ = try write(psi(some: 40, full: 6.25), to: "memory.pressure")
        #expect(watcher.check() == .critical)
    }

    @Test("A missing or garbled file reports nothing")
    func missingOrGarbled() throws {
        let missing = MemoryPressureWatcher(source: .cgroupEvents(path: directory.url.appendingPathComponent("none").path)) { _ in }
        #expect(missing.check() == nil)
        let garbled = try write("high lots\n\u{0}\u{1}max\n", to: "garbled")
        let watcher = MemoryPressureWatcher(source: .cgroupEvents(path: garbled)) { _ in }
        #expect(watcher.check() == nil)
        #expect(watcher.check() == nil)
        let psi = MemoryPressureWatcher(source: .pressureStall(path: garbled)) { _ in }
        #expect(psi.check() == nil)
    }

    @Test("Started, it purges a cache when the file shows pressure; stopped, it reads no more")
    func startedWatcherPurges() async throws {
        let path = try write(events(high: 0, max: 0), to: "memory.events")
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 10, entryCostLimitRatio: 1, shardCount: 1)
        for i in 0..<10 { cache.set(i, forKey: "k\(i)", cost: 10) }
        let watcher = MemoryPressureWatcher(source: .cgroupEvents(path: path), interval: .milliseconds(5)) { cache.purge(level: $0) }
        watcher.start()
        // The first reading must have happened before the counters rise, or it would be the baseline.
        #expect(await eventually { watcher.hasReadCounters })
        _ = try write(events(high: 0, max: 1), to: "memory.events")
        #expect(await eventually { cache.totalCount == 0 })
        watcher.stop()
    }
}
