import Foundation

/// How much memory this process may use, read from `/proc/meminfo` and lowered by the limit of a
/// cgroup over the process (a container's, a systemd unit's `MemoryMax=`). A server's cache or buffer sized from the host's RAM alone
/// gets OOM-killed in a container whose limit is a tenth of it. The one reader of these files.
package enum SystemMemory {
    /// cgroup v1 reports "no limit" as a huge number (about 2^63 rounded to pages); anything above
    /// this is treated as unlimited.
    private static let unlimitedThreshold: UInt64 = 1 << 60

    /// A cgroup's limit file and usage file, either of which may be missing.
    package typealias CgroupFiles = (limit: String?, usage: String?)

    /// The limit and usage of the tightest cgroup (v2) over this process.
    package static func cgroupV2() -> CgroupFiles {
        tightest(folders(mount: "/sys/fs/cgroup", path: ownCgroupPath(controller: nil)), limit: "memory.max", usage: "memory.current")
    }

    /// The limit and usage of the tightest cgroup (v1 memory controller) over this process.
    package static func cgroupV1() -> CgroupFiles {
        tightest(
            folders(mount: "/sys/fs/cgroup/memory", path: ownCgroupPath(controller: "memory")), limit: "memory.limit_in_bytes",
            usage: "memory.usage_in_bytes")
    }

    /// `/proc/self/cgroup`, read once: a process stays in its cgroup.
    private static let procSelfCgroup = read("/proc/self/cgroup")

    /// This process's cgroup path from `/proc/self/cgroup`: the v2 line (`0::/path`) when
    /// `controller` is nil, else the v1 line naming it (`4:memory:/path`).
    package static func ownCgroupPath(controller: String?, procSelfCgroup: String? = procSelfCgroup) -> String {
        for line in (procSelfCgroup ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let matches = controller.map { name in fields[1].split(separator: ",").contains { $0 == name } } ?? (fields[0] == "0" && fields[1].isEmpty)
            if matches { return String(fields[2]) }
        }
        return "/"
    }

    /// The folders whose limits apply to a process in cgroup `path` under `mount`: the mount's root
    /// and every folder down to its own. In a container the namespace makes its own folder the
    /// root; under systemd it is the unit's (`system.slice/imagepipe.service`), whose `MemoryMax=`
    /// the root does not show. Folders that do not exist (a path from outside the namespace) are
    /// skipped when read.
    package static func folders(mount: String, path: String) -> [String] {
        var folders = [mount], folder = mount
        for component in path.split(separator: "/") where component != "." && component != ".." {
            // String's own appends: `"/" + component` is a generic append that costs every
            // command a scan of the binary's conformance records at start-up.
            folder.append("/")
            folder.append(String(component))
            folders.append(folder)
        }
        return folders
    }

    /// The limit file (and the usage beside it) with the smallest limit among `folders`; the
    /// root's files when none sets one.
    private static func tightest(_ folders: [String], limit: String, usage: String) -> CgroupFiles {
        var best: CgroupFiles = (nil, nil)
        var bestLimit = UInt64.max
        for (index, folder) in folders.enumerated() {
            let text = read(folder + "/" + limit)
            if index == 0 && best.limit == nil { best = (text, read(folder + "/" + usage)) }
            if let value = text.flatMap(cgroupLimit(in:)), value < bestLimit {
                bestLimit = value
                best = (text, read(folder + "/" + usage))
            }
        }
        return best
    }

    /// All the memory this process may use: the smaller of physical memory and the cgroup limit,
    /// in bytes; nil when neither can be read.
    package static func availableBytes(
        meminfo: String? = read("/proc/meminfo"), cgroupV2: String? = cgroupV2().limit, cgroupV1: String? = cgroupV1().limit
    ) -> UInt64? {
        let physical = meminfo.flatMap { field("MemTotal", in: $0) } ?? UInt64(ProcessInfo.processInfo.physicalMemory)
        let limits = [cgroupV2, cgroupV1].compactMap { $0.flatMap(cgroupLimit(in:)) }
        return ([physical] + limits).filter { $0 > 0 }.min()
    }

    /// The memory still to be had without swapping: `MemAvailable` (page cache the kernel can
    /// drop included; `MemFree` on kernels without it), lowered to the room left under a cgroup
    /// limit (limit − usage). Nil when nothing can be read.
    package static func freeBytes(
        meminfo: String? = read("/proc/meminfo"), cgroupV2: CgroupFiles = cgroupV2(), cgroupV1: CgroupFiles = cgroupV1()
    ) -> UInt64? {
        let host = meminfo.flatMap { field("MemAvailable", in: $0) ?? field("MemFree", in: $0) }
        let rooms = [cgroupV2, cgroupV1].compactMap { files -> UInt64? in
            guard let limit = files.limit.flatMap(cgroupLimit(in:)),
                let usage = files.usage.flatMap({ UInt64(trimmed($0)) })
            else { return nil }
            return limit > usage ? limit - usage : 0
        }
        return ([host].compactMap { $0 } + rooms).min()
    }

    /// `MemTotal:  24684096 kB` → bytes.
    package static func memTotal(in meminfo: String) -> UInt64? { field("MemTotal", in: meminfo) }

    /// A `/proc/meminfo` field in bytes (`Name:  24684096 kB`).
    package static func field(_ name: String, in meminfo: String) -> UInt64? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let value = UInt64(fields[1]) else { return nil }
            // "kB", compared as ASCII without case: `lowercased()` would load Unicode's case tables.
            let isKB = fields.count >= 3 && fields[2].utf8.elementsEqual("kb".utf8) { $0 | 0x20 == $1 }
            let (bytes, overflow) = value.multipliedReportingOverflow(by: isKB ? 1024 : 1)
            return overflow ? nil : bytes
        }
        return nil
    }

    /// A cgroup file's limit: a byte count, or `max` (v2) / a huge number (v1) for none.
    package static func cgroupLimit(in text: String) -> UInt64? {
        guard let value = UInt64(trimmed(text)), value < unlimitedThreshold else { return nil }
        return value
    }

    /// `text` without ASCII white space at either end (the kernel writes these files in ASCII).
    /// Not Foundation's `trimmingCharacters`, whose first use sets up NSString, nor
    /// `Character.isWhitespace`, which loads Unicode's property tables: each is a tenth of a
    /// millisecond of every command's start-up.
    package static func trimmed(_ text: String) -> Substring {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first..<bytes.index(after: last)]
    }

    /// These files are tiny; a cap keeps a strange mount from making us read much.
    private static func read(_ path: String) -> String? {
        FileIO.readSystemText(path)
    }
}
