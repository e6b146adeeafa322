import Foundation
import ImagePipe
import PipelineCore

// SDWebImage's `UIView+WebCacheOperation` and the bookkeeping of `UIView+WebCache`: the loads a
// target runs, one per operation key, held weakly and thread-safe.
extension ImageTarget {
    /// Records `task` as the load for `key` (nil forgets it), without cancelling the previous one.
    public func setImageLoadOperation(_ task: ImageTask?, forKey key: String) {
        ImageTargetRegistry.shared.state(for: self).setOperation(task, forKey: key)
    }

    /// The running load for `key`, if any.
    public func imageLoadOperation(forKey key: String) -> ImageTask? {
        ImageTargetRegistry.shared.existingState(for: self)?.operation(forKey: key)
    }

    /// Cancels the load for `key` and forgets it; its completion reports `cancelled`.
    public func cancelImageLoadOperation(forKey key: String) {
        ImageTargetRegistry.shared.existingState(for: self)?.removeOperation(forKey: key, cancelling: true)?.cancel()
    }

    /// Forgets the load for `key` without cancelling it.
    public func removeImageLoadOperation(forKey key: String) {
        _ = ImageTargetRegistry.shared.existingState(for: self)?.removeOperation(forKey: key, cancelling: false)
    }

    /// Cancels the load of `slot` started without a custom operation key
    /// (SDWebImage's `sd_cancelCurrentImageLoad`).
    public func cancelCurrentImageLoad(for slot: ImageSlot = .image) {
        cancelImageLoadOperation(forKey: slot.defaultOperationKey(for: type(of: self)))
    }

    /// The operation key of the latest `setImage` call (SDWebImage's `sd_latestOperationKey`).
    public var latestOperationKey: String? {
        ImageTargetRegistry.shared.existingState(for: self)?.latestOperationKey
    }

    /// The URL of the latest `setImage` call, whatever its slot (SDWebImage's `sd_imageURL`).
    public var imageURL: URL? {
        ImageTargetRegistry.shared.existingState(for: self)?.latestURL
    }

    /// The URL of the latest `setImage` call for `key`.
    public func imageURL(forKey key: String) -> URL? {
        ImageTargetRegistry.shared.existingState(for: self)?.url(forKey: key)
    }

    /// The progress of the latest load for `key`, reset by each `setImage` call for it.
    public func imageProgress(forKey key: String) -> ImageTargetProgress {
        ImageTargetRegistry.shared.state(for: self).progress(forKey: key)
    }

    /// The progress of the main slot's load (SDWebImage's `sd_imageProgress`).
    public var imageProgress: ImageTargetProgress {
        imageProgress(forKey: ImageSlot.image.defaultOperationKey(for: type(of: self)))
    }
}
