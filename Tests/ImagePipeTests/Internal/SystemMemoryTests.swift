import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("System memory")
struct SystemMemoryTests {
    let meminfo = "MemTotal:       24684096 kB\nMemFree:         1000 kB\n"

    @Test("Physical memory comes from MemTotal in kB")
    func memTotal() {
        #expect(SystemMemory.memTotal(in: meminfo) == 24_684_096 * 1024)
        #expect(SystemMemory.memTotal(in: "garbage") == nil)
    }

    @Test("A container's cgroup limit wins over the host's RAM, v2 and v1")
    func cgroupLimits() {
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: "536870912\n", cgroupV1: nil) == 536_870_912)
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: nil, cgroupV1: "1073741824\n") == 1_073_741_824)
    }

    @Test("The process's own cgroup is found from /proc/self/cgroup, v2 and v1, with every folder above it")
    func ownCgroup() {
        let systemdV2 = "0::/system.slice/imagepipe.service\n"
        #expect(SystemMemory.ownCgroupPath(controller: nil, procSelfCgroup: systemdV2) == "/system.slice/imagepipe.service")
        #expect(
            SystemMemory.folders(mount: "/sys/fs/cgroup", path: "/system.slice/imagepipe.service") == [
                "/sys/fs/cgroup", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup/system.slice/imagepipe.service",
            ])
        let hybrid = "9:name=systemd:/\n4:memory,kmem:/process_api/abc\n0::/\n"
        #expect(SystemMemory.ownCgroupPath(controller: "memory", procSelfCgroup: hybrid) == "/process_api/abc")
        #expect(SystemMemory.ownCgroupPath(controller: nil, procSelfCgroup: hybrid) == "/")
        #expect(SystemMemory.ownCgroupPath(controller: "memory", procSelfCgroup: nil) == "/")
        #expect(SystemMemory.folders(mount: "/m", path: "/") == ["/m"])
        // The kernel never writes `..`; a path that did could not climb above the mount.
        #expect(SystemMemory.folders(mount: "/m", path: "/../a") == ["/m", "/m/a"])
    }

    @Test("No cgroup limit (v2 `max`, v1's huge number) leaves the RAM")
    func unlimitedCgroup() {
        let ram = UInt64(24_684_096) * 1024
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: "max\n", cgroupV1: nil) == ram)
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: nil, cgroupV1: "9223372036854771712\n") == ram)
    }

    @Test(
        "Limit files are read with white space at either end",
        arguments: [
            ("536870912", "536870912"), (" \t536870912 \n", "536870912"), ("max\n", "max"), ("\n", ""), ("", ""), ("1 2\n", "1 2"),
        ])
    func trimmed(text: String, expected: String) {
        #expect(SystemMemory.trimmed(text) == expected)
    }

    @Test("Free memory is MemAvailable (MemFree without it), lowered to the room under a cgroup limit")
    func freeMemory() {
        let host = "MemTotal:  4000 kB\nMemFree:  1000 kB\nMemAvailable:  3000 kB\n"
        #expect(SystemMemory.freeBytes(meminfo: host, cgroupV2: (nil, nil), cgroupV1: (nil, nil)) == 3000 * 1024)
        #expect(SystemMemory.freeBytes(meminfo: meminfo, cgroupV2: (nil, nil), cgroupV1: (nil, nil)) == 1000 * 1024)
        #expect(SystemMemory.freeBytes(meminfo: host, cgroupV2: ("2048000\n", "1024000\n"), cgroupV1: (nil, nil)) == 1_024_000)
        #expect(
            SystemMemory.freeBytes(meminfo: host, cgroupV2: (nil, nil), cgroupV1: ("2048000\n", "4096000\n")) == 0,
            "a cgroup over its limit has no room")
        #expect(
            SystemMemory.freeBytes(meminfo: host, cgroupV2: ("max\n", "1024000\n"), cgroupV1: (nil, nil)) == 3000 * 1024,
            "no limit leaves the host's figure")
        #expect(SystemMemory.freeBytes(meminfo: nil, cgroupV2: (nil, nil), cgroupV1: (nil, nil)) == nil)
    }

    @Test("The default memory cache limit is a bounded share of this machine's memory")
    func defaultLimit() {
        let limit = MemoryCacheDefaults.costLimit
        #expect(limit > 0)
        #expect(limit < Int.max)
        if let available = SystemMemory.availableBytes() {
            #expect(UInt64(limit) <= available / 4)
        }
    }
}
