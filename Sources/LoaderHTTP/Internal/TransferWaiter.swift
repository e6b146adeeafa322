import Foundation
import PipelineCore
import Synchronization

/// One caller of a (possibly shared) transfer: its own progress, decryptor and single completion.
final class TransferWaiter: Sendable {
    typealias Outcome = Result<ImageLoadResult, ImagePipeError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
        var transfer: CurlTransfer?
        var lastFraction: Double = -1
    }

    private let state = Mutex(State())
    private let progress: (@Sendable (ImageLoadProgress) -> Void)?
    private let minimumProgressInterval: Double
    let wantsPartialData: Bool
    private let decryptor: ImageDecryptor?

    init(progress: (@Sendable (ImageLoadProgress) -> Void)?, minimumProgressInterval: Double,
         wantsPartialData: Bool, decryptor: ImageDecryptor?) {
        self.progress = progress
        self.minimumProgressInterval = min(max(minimumProgressInterval, 0), 1)
        self.wantsPartialData = wantsPartialData
        self.decryptor = decryptor
    }

    var isDone: Bool { state.withLock { $0.outcome != nil } }

    /// Remembers the transfer for `cancel`; false when the caller cancelled first, in which case
    /// the binder detaches the waiter itself (so a cancel racing the attach never leaks a transfer).
    func bind(_ transfer: CurlTransfer) -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.transfer = transfer
            return true
        }
    }

    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready: Outcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Completes this caller with `cancelled` at once and leaves the transfer to the others.
    func cancel() {
        let transfer: CurlTransfer? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            return state.transfer
        }
        guard finish(.failure(.cancelled)) else { return }
        transfer?.detach(self)
    }

    /// Called on the loader thread; throttled by fraction as SDWebImage does, unknown totals
    /// report every chunk, the last byte of a known total always reports.
    func report(received: Int64, expected: Int64?, partialData: Data?) {
        guard let progress else { return }
        let fraction = expected.map { $0 > 0 ? Double(received) / Double($0) : 1 }
        let shouldReport: Bool = state.withLock { state in
            guard state.outcome == nil else { return false }
            guard let fraction else { return true }
            guard fraction >= 1 || fraction - state.lastFraction >= minimumProgressInterval || state.lastFraction < 0 else { return false }
            state.lastFraction = fraction
            return true
        }
        if shouldReport {
            progress(ImageLoadProgress(receivedBytes: received, expectedBytes: expected, partialData: wantsPartialData ? partialData : nil))
        }
    }

    /// Delivers the transfer's outcome through this caller's decryptor.
    func complete(_ outcome: Outcome) {
        guard case .success(var result) = outcome, let decryptor else {
            finish(outcome)
            return
        }
        guard let plain = decryptor.decrypt(result.data, result.httpResponse) else {
            finish(.failure(.badImageData(reason: "the decryptor returned no data")))
            return
        }
        result.data = plain
        finish(.success(result))
    }

    @discardableResult
    private func finish(_ outcome: Outcome) -> Bool {
        let continuation: CheckedContinuation<Outcome, Never>?? = state.withLock { state in
            guard state.outcome == nil else { return .none }
            state.outcome = outcome
            state.transfer = nil
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard case .some(let waiting) = continuation else { return false }
        waiting?.resume(returning: outcome)
        return true
    }
}
