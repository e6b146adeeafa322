import Foundation

/// How many bytes of decoded frames a player may buffer when not told: SDWebImage's rule,
/// min(20 % of total RAM, 60 % of free RAM), read from `/proc/meminfo` on Linux.
public enum FrameBufferBudget {
    /// The automatic budget in bytes; falls back to 20 % of physical memory when `/proc/meminfo`
    /// cannot be read.
    public static func automatic() -> Int {
        let meminfo = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)
        return automatic(meminfo: meminfo, physicalMemory: ProcessInfo.processInfo.physicalMemory)
    }

    static func automatic(meminfo: String?, physicalMemory: UInt64) -> Int {
        if let meminfo, let memory = parse(meminfo) {
            return max(min(memory.total / 5, memory.free * 3 / 5), 0)
        }
        return Int(clamping: physicalMemory / 5)
    }

    /// Total and free bytes. "Free" is `MemAvailable` (what the kernel can hand out without
    /// swapping, page cache included) when present, as SDWebImage's free count includes inactive
    /// pages; else `MemFree`.
    static func parse(_ meminfo: String) -> (total: Int, free: Int)? {
        var fields: [String: Int] = [:]
        for line in meminfo.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
            guard parts.count >= 2, let kilobytes = Int(parts[1]) else { continue }
            fields[String(parts[0])] = kilobytes * 1024
        }
        guard let total = fields["MemTotal"], let free = fields["MemAvailable"] ?? fields["MemFree"] else { return nil }
        return (total, free)
    }
}
