import Testing
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

    @Test("No cgroup limit (v2 `max`, v1's huge number) leaves the RAM")
    func unlimitedCgroup() {
        let ram = UInt64(24_684_096) * 1024
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: "max\n", cgroupV1: nil) == ram)
        #expect(SystemMemory.availableBytes(meminfo: meminfo, cgroupV2: nil, cgroupV1: "9223372036854771712\n") == ram)
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
