import Foundation
import PipelineCore

/// How many bytes of decoded frames a player may buffer when not told: SDWebImage's rule,
/// min(20 % of total memory, 60 % of free memory), both as a container's cgroup allows.
enum FrameBufferBudget {
    static func automatic() -> Int {
        automatic(
            total: SystemMemory.availableBytes(), free: SystemMemory.freeBytes(),
            physicalMemory: ProcessInfo.processInfo.physicalMemory)
    }

    /// With free memory unknown, 20 % of the total (of physical memory when that is unknown too).
    static func automatic(total: UInt64?, free: UInt64?, physicalMemory: UInt64) -> Int {
        guard let total, let free else { return Int(clamping: (total ?? physicalMemory) / 5) }
        return Int(clamping: min(total / 5, free / 5 * 3))
    }
}
