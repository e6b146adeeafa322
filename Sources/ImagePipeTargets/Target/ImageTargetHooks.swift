import Foundation
import ImagePipe
import PipelineCore

/// Shows that a target is loading (SDWebImage's `SDWebImageIndicator`). Called on the request's
/// callback executor: start before the load, progress while bytes arrive, stop when it finishes.
public protocol ImageIndicator: Sendable {
    func startAnimating()
    func stopAnimating()
    /// 0…1; not called while the total size is unknown.
    func updateProgress(_ fraction: Double)
}

extension ImageIndicator {
    public func updateProgress(_ fraction: Double) {}
}

/// How a loaded image replaces the old one (SDWebImage's `SDWebImageTransition`). Used only for
/// images that took time to arrive — from the loader or an asynchronous disk query — unless the
/// request says `.forceTransition`: a memory hit should appear at once, not fade in.
public protocol ImageTransition: Sendable {
    /// Seconds the transition lasts; the UI layer animates over it.
    var duration: Double { get }

    /// Before the image is applied (SDWebImage's `prepares`).
    func prepare(_ target: any ImageTarget, image: Image?, slot: ImageSlot, cacheType: ImageCacheType, url: URL?)

    /// Applies the result, over `duration`, and calls `done(finished)` once when it has ended
    /// (SDWebImage's `animations`). The default shows it at once with `display(_:in:)`.
    func apply(_ result: ImageResult, to target: any ImageTarget, slot: ImageSlot, done: @escaping @Sendable (Bool) -> Void)

    /// After `apply` reported it was done (SDWebImage's `completion`). With `.waitTransition` the
    /// request's completion runs only after this.
    func completed(_ target: any ImageTarget, slot: ImageSlot, finished: Bool)
}

extension ImageTransition {
    public var duration: Double { 0 }
    public func prepare(_ target: any ImageTarget, image: Image?, slot: ImageSlot, cacheType: ImageCacheType, url: URL?) {}
    public func apply(_ result: ImageResult, to target: any ImageTarget, slot: ImageSlot, done: @escaping @Sendable (Bool) -> Void) {
        target.display(result, in: slot)
        done(true)
    }
    public func completed(_ target: any ImageTarget, slot: ImageSlot, finished: Bool) {}
}
