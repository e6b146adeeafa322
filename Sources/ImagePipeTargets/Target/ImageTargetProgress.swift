import PipelineCore
import Synchronization

/// The progress of a target's current load (SDWebImage's `sd_imageProgress`, an `NSProgress`):
/// bytes as units, reset when a new load starts. Thread-safe; read it from anywhere.
public final class ImageTargetProgress: Sendable {
    /// SDWebImage's `SDWebImageProgressUnitCountUnknown`: what a finished load with no known length
    /// reports as both total and completed, so "finished" still reads as 100 %.
    static let unknownUnitCount: Int64 = 1

    private struct Counts {
        var total: Int64 = 0
        var completed: Int64 = 0
        var known = false
    }
    private let counts = Mutex(Counts())

    package init() {}

    /// Bytes expected; 0 while unknown.
    public var totalUnitCount: Int64 { counts.withLock { $0.total } }
    public var completedUnitCount: Int64 { counts.withLock { $0.completed } }
    /// False until a size is known (no `Content-Length` yet, or none at all).
    public var isDeterminate: Bool { counts.withLock { $0.known } }

    /// 0…1; 0 while the total is unknown.
    public var fractionCompleted: Double {
        counts.withLock { $0.total > 0 ? min(Double($0.completed) / Double($0.total), 1) : 0 }
    }

    public var isFinished: Bool {
        counts.withLock { $0.total > 0 && $0.completed >= $0.total }
    }

    func reset() { counts.withLock { $0 = Counts() } }

    func update(_ progress: ImageLoadProgress) {
        counts.withLock {
            if let expected = progress.expectedBytes, expected > 0 {
                $0.total = expected
                $0.known = true
            }
            $0.completed = progress.receivedBytes
        }
    }

    /// A successful load that never reported a size ends at unknown/unknown (SDWebImage's rule).
    func markFinished() {
        counts.withLock {
            if $0.total == 0 && $0.completed == 0 {
                $0.total = Self.unknownUnitCount
                $0.completed = Self.unknownUnitCount
            } else if $0.total == 0 || !$0.known {
                $0.total = max($0.completed, Self.unknownUnitCount)
                $0.completed = $0.total
            } else {
                $0.completed = $0.total
            }
        }
    }
}
