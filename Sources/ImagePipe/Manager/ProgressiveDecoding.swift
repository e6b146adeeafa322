import Foundation
import PipelineCore
import Synchronization

/// Partial images of one progressive load (`.progressiveLoad`): one incremental decoder per request,
/// fed the cumulative bytes. A decode runs at most one at a time; bytes that arrive meanwhile replace
/// each other, so a slow decode skips intermediate states instead of queueing them (SDWebImage
/// likewise decodes only when no decode is in flight).
final class ProgressiveDecoding: Sendable {
    private struct State {
        var decoder: (any IncrementalImageDecoder)?
        var latest: Data?
        var busy = false
        var unsupported = false
    }

    private let task: ImageTask
    private let manager: ImageManager
    private let options: ImageDecodeOptions
    private let coder: (any ImageCoder)?
    private let state = Mutex(State())

    init(flow: ImageLoadFlow, task: ImageTask, cacheKey: String) {
        self.task = task
        manager = flow.manager
        options = flow.decodeOptions(cacheKey: cacheKey)
        coder = flow.context[.imageCoder]
    }

    func feed(_ data: Data) {
        let start = state.withLock { state -> Bool in
            guard !state.unsupported else { return false }
            state.latest = data
            if state.busy { return false }
            state.busy = true
            return true
        }
        guard start else { return }
        Task { await drain() }
    }

    private func drain() async {
        while let data = state.withLock({ state -> Data? in
            let next = state.latest
            state.latest = nil
            if next == nil { state.busy = false }
            return next
        }) {
            guard !task.isFinished, let decoder = decoder(for: data) else {
                state.withLock {
                    $0.busy = false
                    $0.latest = nil
                }
                return
            }
            let image = try? await manager.cpu.run { () -> Image? in
                decoder.update(data, isComplete: false)
                return try decoder.currentImage()
            }
            if let image, !image.pixelSize.isEmpty {
                task.emit(.partialImage(image.with { $0.isIncremental = true }), terminal: false)
            }
        }
    }

    /// The request's decoder, made on first use: the context's coder if it is progressive, else the
    /// highest-priority registered coder that can start on these bytes.
    private func decoder(for data: Data) -> (any IncrementalImageDecoder)? {
        state.withLock { state in
            if let decoder = state.decoder { return decoder }
            let progressive = (coder as? any ProgressiveImageCoder) ?? (coder == nil ? manager.coders.progressiveCoder(for: data) : nil)
            guard let progressive else {
                // Too few bytes to sniff yet keeps trying; a known non-progressive format stops.
                if data.count >= 16 { state.unsupported = true }
                return nil
            }
            state.decoder = progressive.makeIncrementalDecoder(options: options)
            return state.decoder
        }
    }
}
