import Dispatch
import Foundation
import ImagePipe
import PipelineCore
import Synchronization

/// What one target remembers about its loads, per operation key (SDWebImage keeps it in associated
/// objects: `sd_operationDictionary`, `sd_imageURL`, `sd_imageProgress`, `sd_latestOperationKey`).
///
/// Operations are held weakly: the manager keeps a running load alive, and a finished one should not
/// outlive it here. Each `setImage` call gets a generation number per key, so a result can tell
/// whether a later call superseded it even if it arrives while that call is still starting: two
/// threads calling `setImage` at once must still leave exactly the latest image.
final class ImageTargetState: Sendable {
    private struct Operation {
        weak var task: ImageTask?
        var generation: UInt64
    }

    private struct Slot {
        var operation: Operation?
        var generation: UInt64 = 0
        /// Generations up to this one were cancelled by a later `setImage`; their results are dropped.
        var supersededThrough: UInt64 = 0
        /// Generations up to this one were cancelled (superseded or by `cancelImageLoadOperation`):
        /// one that attaches its task late cancels it itself.
        var cancelledThrough: UInt64 = 0
        var url: URL?
        let progress = ImageTargetProgress()
    }

    private struct Values {
        var slots: [String: Slot] = [:]
        var latestOperationKey: String?
        var latestURL: URL?
    }

    private let values = Mutex(Values())
    /// The default callback executor outside actors: serial, so the target's updates never overlap.
    let executor: any CallbackExecutor
    /// One ordered executor per actor this target was given loads from.
    private let actorExecutors = Mutex<[ObjectIdentifier: ActorCallbackExecutor]>([:])

    init(label: String) {
        executor = DispatchQueueCallbackExecutor(DispatchQueue(label: "ImagePipe.ImageTarget.\(label)"))
    }

    /// The default executor for a load started from `isolation`: that actor, else the serial queue.
    func executor(for isolation: (any Actor)?) -> any CallbackExecutor {
        guard let isolation else { return executor }
        return actorExecutors.withLock { executors in
            if let existing = executors[ObjectIdentifier(isolation)] { return existing }
            let created = ActorCallbackExecutor(isolation)
            executors[ObjectIdentifier(isolation)] = created
            return created
        }
    }

    /// Starts a load for `key`: records it as the latest and, unless `cancelsPrevious` is false,
    /// takes out the previous operation for the caller to cancel (outside the lock: cancelling
    /// delivers its completion synchronously).
    func begin(key: String, url: URL?, cancelsPrevious: Bool) -> (generation: UInt64, previous: ImageTask?) {
        values.withLock { values in
            values.latestOperationKey = key
            values.latestURL = url
            var slot = values.slots[key] ?? Slot()
            slot.generation += 1
            slot.url = url
            slot.progress.reset()
            var previous: ImageTask?
            if cancelsPrevious {
                previous = slot.operation?.task
                slot.operation = nil
                slot.supersededThrough = slot.generation - 1
                slot.cancelledThrough = max(slot.cancelledThrough, slot.generation - 1)
            }
            values.slots[key] = slot
            return (slot.generation, previous)
        }
    }

    /// Records the task of `generation`; false when it was cancelled before it could be recorded.
    func attach(_ task: ImageTask, key: String, generation: UInt64) -> Bool {
        values.withLock { values in
            guard var slot = values.slots[key], generation > slot.cancelledThrough else { return false }
            if (slot.operation?.generation ?? 0) <= generation {
                slot.operation = Operation(task: task, generation: generation)
            }
            values.slots[key] = slot
            return true
        }
    }

    func isSuperseded(key: String, generation: UInt64) -> Bool {
        values.withLock { generation <= ($0.slots[key]?.supersededThrough ?? 0) }
    }

    /// Forgets the operation of `generation` once it has finished.
    func finish(key: String, generation: UInt64) {
        values.withLock { values in
            if values.slots[key]?.operation?.generation == generation { values.slots[key]?.operation = nil }
        }
    }

    func setOperation(_ task: ImageTask?, forKey key: String) {
        values.withLock { values in
            var slot = values.slots[key] ?? Slot()
            slot.operation = task.map { Operation(task: $0, generation: slot.generation) }
            values.slots[key] = slot
        }
    }

    func operation(forKey key: String) -> ImageTask? {
        values.withLock { $0.slots[key]?.operation?.task }
    }

    /// Takes out the operation for `key`; with `cancelling`, loads still starting will cancel
    /// themselves too.
    func removeOperation(forKey key: String, cancelling: Bool) -> ImageTask? {
        values.withLock { values in
            guard var slot = values.slots[key] else { return nil }
            let task = slot.operation?.task
            slot.operation = nil
            if cancelling { slot.cancelledThrough = slot.generation }
            values.slots[key] = slot
            return task
        }
    }

    func progress(forKey key: String) -> ImageTargetProgress {
        values.withLock { values in
            if let slot = values.slots[key] { return slot.progress }
            let slot = Slot()
            values.slots[key] = slot
            return slot.progress
        }
    }

    func url(forKey key: String) -> URL? { values.withLock { $0.slots[key]?.url } }
    var latestURL: URL? { values.withLock { $0.latestURL } }
    var latestOperationKey: String? { values.withLock { $0.latestOperationKey } }
}
