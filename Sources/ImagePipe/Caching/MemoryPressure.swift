import Foundation
import PipelineCore
import Synchronization

/// How hard to free memory: what `MemoryCache.purge(level:)` takes and `MemoryPressureWatcher`
/// reports.
public enum MemoryPressure: Sendable, Hashable {
    /// The process is near its memory limit: keep the most recently used half.
    case moderate
    /// The process is at its limit (or the kernel is reclaiming hard): drop everything that can be
    /// rebuilt.
    case critical
}

/// Watches Linux's memory-pressure reports and calls `onPressure` when they rise, so a service can
/// purge its caches before the OOM killer picks it (SDWebImage purges on the system's memory
/// warning; Linux has no such notification). It reads, every `interval`:
///
/// - `.cgroupEvents`: cgroup v2 `memory.events`. A rise of `high` (the cgroup went over
///   `memory.high` and was throttled) is `.moderate`; of `max` or `oom` (it hit `memory.max`) is
///   `.critical`.
/// - `.pressureStall`: PSI `memory.pressure`. `full avg10` (the share of the last 10 s in which every
///   task waited for memory) at or above `critical` percent is `.critical`; `some avg10` at or above
///   `moderate` percent is `.moderate`. Reported at every reading while it lasts.
///
/// A file that is missing or unreadable reports nothing. Nothing runs until `start()`.
///
/// ```swift
/// let watcher = MemoryPressureWatcher(source: .cgroupEvents()) { level in
///     DefaultImageCache.shared.memoryCache.purge(level: level)
/// }
/// watcher.start()
/// ```
public final class MemoryPressureWatcher: Sendable {
    public enum Source: Sendable, Hashable {
        case cgroupEvents(path: String = "/sys/fs/cgroup/memory.events")
        case pressureStall(path: String = "/sys/fs/cgroup/memory.pressure", moderate: Double = 10, critical: Double = 10)
    }

    public let source: Source
    public let interval: Duration
    private let onPressure: @Sendable (MemoryPressure) -> Void
    /// The counters of the last `memory.events` reading; nil before the first.
    private let lastEvents = Mutex<[String: UInt64]?>(nil)
    private let poller = Mutex<Task<Void, Never>?>(nil)

    public init(source: Source, interval: Duration = .seconds(1), onPressure: @escaping @Sendable (MemoryPressure) -> Void) {
        self.source = source
        self.interval = interval
        self.onPressure = onPressure
    }

    deinit { poller.withLock { $0?.cancel() } }

    /// Starts reading the file every `interval` on a background task (once; later calls do nothing).
    public func start() {
        poller.withLock { poller in
            guard poller == nil else { return }
            poller = Task.detached(priority: .utility) { [weak self, interval] in
                while !Task.isCancelled {
                    self?.check()
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    public func stop() {
        poller.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// Reads the file once and calls `onPressure` with what it shows; returns that level. The
    /// first `memory.events` reading only records the counters.
    @discardableResult
    func check() -> MemoryPressure? {
        let level: MemoryPressure?
        switch source {
        case .cgroupEvents(let path):
            level = Self.read(path).flatMap(eventsLevel(in:))
        case .pressureStall(let path, let moderate, let critical):
            level = Self.read(path).flatMap { Self.stallLevel(in: $0, moderate: moderate, critical: critical) }
        }
        if let level { onPressure(level) }
        return level
    }

    /// Whether a `memory.events` reading has been recorded (tests wait for it).
    var hasReadCounters: Bool { lastEvents.withLock { $0 != nil } }

    /// The level a new `memory.events` reading shows against the last one.
    private func eventsLevel(in text: String) -> MemoryPressure? {
        let counters = Self.counters(in: text)
        guard !counters.isEmpty else { return nil }
        let last = lastEvents.withLock { last in
            defer { last = counters }
            return last
        }
        guard let last else { return nil }
        func rose(_ name: String) -> Bool { (counters[name] ?? 0) > (last[name] ?? 0) }
        if rose("max") || rose("oom") || rose("oom_kill") { return .critical }
        if rose("high") { return .moderate }
        return nil
    }

    /// `name value` lines (`memory.events`).
    static func counters(in text: String) -> [String: UInt64] {
        var counters: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = UInt64(fields[1]) { counters[String(fields[0])] = value }
        }
        return counters
    }

    /// The level of a PSI reading: `some avg10=… avg60=… avg300=… total=…` and a `full` line.
    static func stallLevel(in text: String, moderate: Double, critical: Double) -> MemoryPressure? {
        var averages: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let kind = fields.first,
                let avg10 = fields.dropFirst().first(where: { $0.hasPrefix("avg10=") }),
                let value = Double(avg10.dropFirst("avg10=".count))
            else { continue }
            averages[String(kind)] = value
        }
        if let full = averages["full"], full >= critical { return .critical }
        if let some = averages["some"], some >= moderate { return .moderate }
        return nil
    }

    /// The file's text, at most 4 KiB (these files are a few lines); nil when it cannot be read.
    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
