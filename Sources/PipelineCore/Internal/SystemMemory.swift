import Foundation

/// How much memory this process may use: the machine's RAM, lowered by a cgroup limit when the
/// process runs in a container. A server's memory cache sized from RAM alone gets OOM-killed in a
/// container whose limit is a tenth of the host's RAM.
enum SystemMemory {
    /// cgroup v1 reports "no limit" as a huge number (about 2^63 rounded to pages); anything above
    /// this is treated as unlimited.
    private static let unlimitedThreshold: UInt64 = 1 << 60

    /// The smaller of physical memory and the cgroup limit, in bytes; nil when neither can be read.
    static func availableBytes(
        meminfo: String? = read("/proc/meminfo"),
        cgroupV2: String? = read("/sys/fs/cgroup/memory.max"),
        cgroupV1: String? = read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    ) -> UInt64? {
        let physical = meminfo.flatMap(memTotal(in:)) ?? UInt64(ProcessInfo.processInfo.physicalMemory)
        let limits = [cgroupV2, cgroupV1].compactMap { $0.flatMap(cgroupLimit(in:)) }
        let all = ([physical] + limits).filter { $0 > 0 }
        return all.min()
    }

    /// `MemTotal:  24684096 kB` → bytes.
    static func memTotal(in meminfo: String) -> UInt64? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let value = UInt64(fields[1]) else { return nil }
            let unit = fields.count >= 3 ? fields[2].lowercased() : ""
            let (bytes, overflow) = value.multipliedReportingOverflow(by: unit == "kb" ? 1024 : 1)
            return overflow ? nil : bytes
        }
        return nil
    }

    /// A cgroup file's limit: a byte count, or `max` (v2) / a huge number (v1) for none.
    static func cgroupLimit(in text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = UInt64(trimmed), value < unlimitedThreshold else { return nil }
        return value
    }

    private static func read(_ path: String) -> String? {
        // These files are tiny; a cap keeps a strange mount from making us read much.
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 64 * 1024) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
