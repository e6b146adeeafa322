import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `process_*` metrics Prometheus' client libraries export, read from `/proc/self` at each
/// scrape: CPU seconds, resident and virtual memory, open and allowed file descriptors, start time.
/// Linux only; elsewhere, or when `/proc` cannot be read, the lines are left out.
enum ProcessMetrics {
    static func exposition() -> String {
        var text = ""
        func add(_ name: String, _ type: String, _ help: String, _ value: Double?) {
            guard let value else { return }
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(format(value))\n"
        }
        let stat = statFields()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        // Fields of /proc/self/stat after the command name: utime 14, stime 15, starttime 22,
        // vsize 23, rss 24 (1-based, as proc(5) numbers them; the array starts at field 3).
        let field = { (number: Int) -> Double? in stat.flatMap { number - 3 < $0.count ? Double($0[number - 3]) : nil } }
        if let user = field(14), let system = field(15), ticks > 0 {
            add("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", (user + system) / ticks)
        }
        add("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", field(24).map { $0 * pageSize })
        add("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", field(23))
        if let start = field(22), let boot = bootTime(), ticks > 0 {
            add("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", boot + start / ticks)
        }
        add("process_open_fds", "gauge", "Number of open file descriptors.", openDescriptors())
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            add("process_max_fds", "gauge", "Maximum number of open file descriptors.", Double(limit.rlim_cur))
        }
        return text
    }

    /// The fields of `/proc/self/stat` after `(comm)`, which may itself hold spaces and parentheses.
    private static func statFields() -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
    }

    private static func openDescriptors() -> Double? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { Double($0.count) }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
