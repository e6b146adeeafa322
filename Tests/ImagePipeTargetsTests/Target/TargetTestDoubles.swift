import Foundation
import Synchronization
import TestSupport

@testable import ImagePipe
@testable import ImagePipeTargets
@testable import PipelineCore

/// A target that records what it was shown, per slot, and notices if two updates ever overlap.
final class RecordingTarget: ImageTarget, Sendable {
    struct Shown: Sendable {
        let slot: ImageSlot
        let image: Image?
        let result: ImageResult?
    }
    private let log = Mutex<[Shown]>([])
    private let inside = Mutex(0)
    let overlaps = Counter()
    let indicator: RecordingIndicator?
    let transition: RecordingTransition?

    init(indicator: RecordingIndicator? = nil, transition: RecordingTransition? = nil) {
        self.indicator = indicator
        self.transition = transition
    }

    var imageIndicator: (any ImageIndicator)? { indicator }
    var imageTransition: (any ImageTransition)? { transition }

    func display(_ image: Image?, in slot: ImageSlot) {
        record(Shown(slot: slot, image: image, result: nil))
    }

    /// The full form, as the pipeline calls it: recorded with the result.
    func display(_ result: ImageResult, in slot: ImageSlot) {
        record(Shown(slot: slot, image: result.image, result: result))
    }

    private func record(_ shown: Shown) {
        if inside.withLock({
            $0 += 1
            return $0
        }) > 1 {
            overlaps.increment()
        }
        log.withLock { $0.append(shown) }
        inside.withLock { $0 -= 1 }
    }

    var shown: [Shown] { log.withLock { $0 } }

    /// Widths shown in `slot`, in order; 0 for a cleared slot.
    func widths(in slot: ImageSlot = .image) -> [Int] {
        shown.filter { $0.slot == slot }.map { $0.image?.pixelSize.width ?? 0 }
    }
}

final class RecordingIndicator: ImageIndicator {
    private let log = Mutex<[String]>([])
    func startAnimating() { log.withLock { $0.append("start") } }
    func stopAnimating() { log.withLock { $0.append("stop") } }
    func updateProgress(_ fraction: Double) { log.withLock { $0.append("progress") } }
    var calls: [String] { log.withLock { $0 } }
}

/// Records its calls; with `holdsUntilReleased`, keeps the transition running until `release()`.
final class RecordingTransition: ImageTransition {
    private let log = Mutex<[String]>([])
    private let pending = Mutex<[@Sendable (Bool) -> Void]>([])
    let holdsUntilReleased: Bool

    init(holdsUntilReleased: Bool = false) { self.holdsUntilReleased = holdsUntilReleased }

    var duration: Double { 0.25 }

    func prepare(_ target: any ImageTarget, image: Image?, slot: ImageSlot, cacheType: ImageCacheType, url: URL?) {
        log.withLock { $0.append("prepare") }
    }

    func apply(_ result: ImageResult, to target: any ImageTarget, slot: ImageSlot, done: @escaping @Sendable (Bool) -> Void) {
        log.withLock { $0.append("apply") }
        target.display(result, in: slot)
        if holdsUntilReleased { pending.withLock { $0.append(done) } } else { done(true) }
    }

    func completed(_ target: any ImageTarget, slot: ImageSlot, finished: Bool) {
        log.withLock { $0.append("completed") }
    }

    func release() {
        for done in pending.withLock({ list in
            defer { list.removeAll() }
            return list
        }) { done(true) }
    }

    var calls: [String] { log.withLock { $0 } }
}

/// Collects completions, thread-safely.
final class CompletionLog: Sendable {
    private let results = Mutex<[Result<ImageResult, ImagePipeError>]>([])
    func record(_ result: Result<ImageResult, ImagePipeError>) { results.withLock { $0.append(result) } }
    var all: [Result<ImageResult, ImagePipeError>] { results.withLock { $0 } }
    var count: Int { results.withLock { $0.count } }
    var handler: @Sendable (Result<ImageResult, ImagePipeError>) -> Void { { self.record($0) } }
}

extension ManagerFixture {
    /// A context sending a target's loads through this fixture's manager.
    var context: ImageContext {
        var context = ImageContext()
        context[.imageManager] = manager
        return context
    }
}

/// A 1 x 1 placeholder, told apart from loaded images by its width.
let placeholderImage = Image(try! PixelBuffer(width: 1, height: 1, format: .rgba8, fill: .white))

extension Result where Success == ImageResult, Failure == ImagePipeError {
    var width: Int? { (try? get())?.image?.pixelSize.width }
    var error: ImagePipeError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Watches whether an object is still alive without keeping it so.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    private struct Holder { weak var object: Object? }
    private let holder = Mutex(Holder())
    func set(_ object: Object) { holder.withLock { $0.object = object } }
    var object: Object? { holder.withLock { $0.object } }
}

extension GatedFixture {
    /// A context that sends a target's loads through this fixture's manager.
    var context: ImageContext { ImageContext().with(.imageManager, manager) }
}
